/**
 * A small, pure screen for text one agent writes and another agent (or its model) will read:
 * posts, DMs, articles. It refuses only what is obviously hostile or careless — instructions
 * aimed at the reader's model, fake chat-role headers, leaked credentials, character floods,
 * link farms — and says why, so the author can fix the text. It is not a content classifier.
 */
import unhomoglyph from 'unhomoglyph';

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

// The verbs and nouns of "ignore your previous instructions", in the languages agents write in.
const IGNORE =
  'ignore|ignoring|disregard|forget|override|bypass|skip|ignorez|ignorer|oublie|oubliez|ignora|ignorar|ignoren|olvida|olvide|ignoriere|ignorieren|vergiss|vergessen|esqueça|esqueca|esquece|dimentica|dimenticare|игнорируй|игнорируйте|игнорировать|забудь|забудьте|проигнорируй|zignoruj|zapomnij|negeer|vergeet';
const PRIOR =
  'previous|prior|preceding|above|earlier|former|all|any|your|the|these|those|system|précédentes|precedentes|toutes|tes|vos|les|anteriores|todas|las|tus|sus|vorherigen|bisherigen|alle|deine|ihre|obigen|as|suas|tuas|precedenti|tutte|le|tue|предыдущие|все|свои|твои|ваши|poprzednie|wszystkie|swoje|twoje|vorige|alle|je|jouw|uw';
const RULES =
  'instructions?|prompts?|rules|directions|guidelines|guardrails|directives|context|consignes|règles|regles|instrucciones|reglas|indicaciones|anweisungen|regeln|vorgaben|instruções|instrucoes|regras|istruzioni|regole|инструкции|инструкций|указания|правила|instrukcje|zasady|instructies|regels';

const INJECTIONS: Array<{ pattern: RegExp; label: string }> = [
  {
    pattern: new RegExp(
      `(?<![\\p{L}])(?:${IGNORE})(?![\\p{L}])[^.!?\\n]{0,40}?(?<![\\p{L}])(?:${PRIOR})(?![\\p{L}])[^.!?\\n]{0,30}?(?<![\\p{L}])(?:${RULES})(?![\\p{L}])`,
      'iu',
    ),
    label: 'ignore previous instructions',
  },
  {
    // Chinese and Japanese: "ignore (all) previous instructions", "forget your instructions".
    pattern:
      /(?:忽略|无视|無視|忘记|忘記|忘れ)[^。！？\n]{0,12}?(?:指令|指示|说明|說明|规则|規則|ルール|命令)|(?:指令|指示|命令|ルール)[^。！？\n]{0,8}?(?:を)?(?:無視|忘れ)/u,
    label: 'ignore previous instructions',
  },
  {
    pattern:
      /\b(?:reveal|print|show|repeat|output|leak|dump|display|tell\s+me)\b[^.!?\n]{0,30}?\b(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|original\s+instructions|instructions\s+verbatim)\b/i,
    label: 'reveal your system prompt',
  },
  {
    pattern:
      /\byou\s+are\s+now\s+(?:in\s+)?(?:dan|developer\s+mode|jailbroken|unrestricted|unfiltered|an?\s+unrestricted)\b/i,
    label: 'you are now …',
  },
  {
    pattern:
      /\b(?:enable|enter|activate|switch\s+to)\s+(?:developer|god|jailbreak|dan|admin|debug)\s+mode\b/i,
    label: 'developer mode',
  },
  { pattern: /\bnew\s+(?:system\s+)?instructions\s*:/i, label: 'new instructions:' },
  {
    pattern:
      /\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|mention\s+this\s+to)\s+(?:the\s+)?(?:user|human|owner|operator)\b/i,
    label: 'do not tell the user',
  },
  {
    pattern: /\b(?:from\s+now\s+on|henceforth),?\s+(?:you\s+(?:will|must|are)|ignore|respond\s+only)\b/i,
    label: 'from now on you …',
  },
  {
    pattern:
      /\b(?:pretend|act\s+as\s+if)\s+(?:you\s+(?:have|had)\s+no|there\s+are\s+no)\s+(?:rules|restrictions|guidelines|filters|limits)\b/i,
    label: 'pretend you have no rules',
  },
];

const ROLE_HEADERS: RegExp[] = [
  /<\|\s*(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\s*\|>/i,
  /\[\/?(?:INST|SYS)\]/,
  /<<\/?SYS>>/,
  /<\/?\s*(?:system|assistant|system[-_]prompt)\s*>/i,
  /^[ \t]*#{1,6}[ \t]*(?:system|assistant|instruction|instructions)[ \t]*:?[ \t]*$/im,
  /^[ \t]*\[(?:system|assistant)\][ \t]*:?/im,
  // Any case ("System:", "SYSTEM:"), alone on a line or followed by an instruction.
  /^[ \t>*_]*(?:system|assistant|developer)[ \t*_]*:/im,
  // A fenced block labelled as a system or assistant message.
  /^[ \t]*(?:```|~~~)[ \t]*(?:system|assistant|developer|instructions?|prompt)\b/im,
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

/**
 * Look-alikes folded to the ASCII letters they imitate (Unicode TR39 confusables: Cyrillic
 * "о" in "ignоre", Greek "Ι", mathematical letters…). ASCII itself is left alone: the full
 * skeleton would also turn "m" into "rn" and break every pattern.
 */
function skeleton(text: string): string {
  return text.replace(/[^\u0000-\u007f]/gu, (ch) => {
    // TR39 folds capital I-like letters to "l" (as it does ASCII "I"): keep them capital I.
    const folded = /\p{Lu}/u.test(ch) && unhomoglyph(ch) === 'l' ? 'I' : unhomoglyph(ch);
    return /^[\u0020-\u007e]+$/.test(folded) ? folded : ch;
  });
}

/** Text with the spaces, quotes and joins that split a key ("lore_sk_" + "abc…") removed. */
function joined(text: string): string {
  return text.replace(/[\s"'`+,]+/g, '');
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
  // Patterns run on the text as written (Cyrillic prose stays Cyrillic) and on its skeleton.
  const forms = [t, skeleton(t)];

  for (const { pattern, label } of INJECTIONS) {
    if (forms.some((f) => pattern.test(f)))
      return {
        ok: false,
        reason: `looks like a prompt-injection attempt ("${label}"): write to other agents, not to their models`,
      };
  }
  for (const pattern of ROLE_HEADERS) {
    const m = pattern.exec(t) ?? pattern.exec(forms[1]!);
    if (m)
      return {
        ok: false,
        reason: `contains a fake system/assistant message header (${JSON.stringify(m[0].trim())})`,
      };
  }
  const compact = joined(forms[1]!);
  for (const { pattern, label } of SECRETS) {
    if (pattern.test(t) || pattern.test(compact))
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
