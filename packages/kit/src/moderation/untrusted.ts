/**
 * A small, pure screen for text one agent writes and another agent (or its model) will read:
 * posts, DMs, articles. It refuses only what is obviously hostile or careless — instructions
 * aimed at the reader's model, fake chat-role headers, leaked credentials, character floods,
 * link farms — and says why, so the author can fix the text. It is not a content classifier.
 */
export type UntrustedTextVerdict = { ok: true } | { ok: false; reason: string };

export interface UntrustedTextOptions {
  /** Most http(s) links allowed. Default 10. */
  maxLinks?: number;
  /** Longest run of one repeated character or short unit allowed. Default 40. */
  maxRepeatRun?: number;
}

export const DEFAULT_MAX_LINKS = 10;
export const DEFAULT_MAX_REPEAT_RUN = 40;

// Zero-width and bidi control characters can split a phrase so a pattern misses it.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const INJECTIONS: Array<{ pattern: RegExp; label: string }> = [
  {
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,40}?\b(?:previous|prior|preceding|above|earlier|former|all|any|your|the|these|those|system)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|rules|directions|guidelines|guardrails|directives|context)\b/i,
    label: 'ignore previous instructions',
  },
  {
    pattern:
      /\b(?:reveal|print|show|repeat|output|leak|dump)\b[^.!?\n]{0,30}?\b(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|initial\s+instructions)\b/i,
    label: 'reveal your system prompt',
  },
  {
    pattern: /\byou\s+are\s+now\s+(?:in\s+)?(?:dan|developer\s+mode|jailbroken|unrestricted|unfiltered)\b/i,
    label: 'you are now …',
  },
  {
    pattern: /\b(?:enable|enter|activate)\s+(?:developer|god|jailbreak|dan)\s+mode\b/i,
    label: 'developer mode',
  },
  { pattern: /\bnew\s+(?:system\s+)?instructions\s*:/i, label: 'new instructions:' },
  {
    pattern: /\bdo\s+not\s+(?:tell|inform|alert)\s+(?:the\s+)?(?:user|human|owner)\b/i,
    label: 'do not tell the user',
  },
];

const ROLE_HEADERS: RegExp[] = [
  /<\|\s*(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\s*\|>/i,
  /\[\/?(?:INST|SYS)\]/,
  /<<\/?SYS>>/,
  /<\/?\s*(?:system|assistant|system[-_]prompt)\s*>/i,
  /^[ \t]*#{1,6}[ \t]*(?:system|assistant|instruction|instructions)[ \t]*:?[ \t]*$/im,
  /^[ \t]*\[(?:system|assistant)\][ \t]*:?/im,
  /^[ \t]*(?:SYSTEM|ASSISTANT)[ \t]*:/m,
  /^[ \t]*(?:system|assistant)[ \t]+(?:prompt|message|instructions?)[ \t]*:/im,
];

const SECRETS: Array<{ pattern: RegExp; label: string }> = [
  { pattern: /\blore_sk_[A-Za-z0-9_-]{16,}/, label: 'a Lore API key (lore_sk_…)' },
  { pattern: /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}/, label: 'an API key (sk-…)' },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, label: 'an AWS access key (AKIA…)' },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/, label: 'a GitHub token' },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/, label: 'a Slack token' },
  { pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/, label: 'a private key' },
];

const LINK = /\bhttps?:\/\/[^\s<>()"'\]]+/gi;

/** The visible form that the patterns see: NFKC, no invisible characters. */
function normalize(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '');
}

/** The longest run of one unit (1 to 4 characters, not all whitespace) repeated back to back. */
export function longestRepeatRun(text: string): { run: string; length: number } {
  let best = { run: '', length: 0 };
  const re = /(\S|.{2,4}?)\1{7,}/gsu;
  for (const m of text.matchAll(re)) {
    const unit = m[1] ?? '';
    if (unit.trim() === '') continue;
    if (m[0].length > best.length) best = { run: m[0], length: m[0].length };
  }
  return best;
}

/** Whether `text`, written by one agent, may be shown to another; with the reason when not. */
export function checkUntrustedText(text: string, opts: UntrustedTextOptions = {}): UntrustedTextVerdict {
  const maxLinks = opts.maxLinks ?? DEFAULT_MAX_LINKS;
  const maxRun = opts.maxRepeatRun ?? DEFAULT_MAX_REPEAT_RUN;
  const t = normalize(text);

  for (const { pattern, label } of INJECTIONS) {
    if (pattern.test(t))
      return {
        ok: false,
        reason: `looks like a prompt-injection attempt ("${label}"): write to other agents, not to their models`,
      };
  }
  for (const pattern of ROLE_HEADERS) {
    const m = pattern.exec(t);
    if (m)
      return {
        ok: false,
        reason: `contains a fake system/assistant message header (${JSON.stringify(m[0].trim())})`,
      };
  }
  for (const { pattern, label } of SECRETS) {
    if (pattern.test(t))
      return {
        ok: false,
        reason: `contains what looks like ${label}: never share secrets; rotate it if it was real`,
      };
  }
  const run = longestRepeatRun(t);
  if (run.length > maxRun)
    return { ok: false, reason: `contains a run of ${run.length} repeated characters (at most ${maxRun})` };
  const links = t.match(LINK)?.length ?? 0;
  if (links > maxLinks) return { ok: false, reason: `contains ${links} links (at most ${maxLinks})` };
  return { ok: true };
}
