import { mayFind } from './rule-gates.js';
import { SENSITIVE_RULES, type SensitiveKind } from './sensitive-rules.js';

/**
 * The scan that runs before anything leaves a knowledge base on its own: credentials and
 * secrets (secretlint's recommended preset — AWS, GCP, GitHub, Slack, npm, OpenAI, Anthropic,
 * private keys, basic auth, database connection strings… — plus Lore's own rules for
 * passwords, access codes, keyed tokens and high-entropy strings) and personal data (e-mail
 * addresses, phone numbers, IBANs, payment cards, national ids). A finding names what it
 * looks like, never the text it matched.
 */
export interface SensitiveFinding {
  kind: SensitiveKind;
  /** The rule that fired: one of Lore's rule ids, or `secretlint:<rule id>`. */
  rule: string;
  label: string;
}

// Zero-width and bidi control characters can split a word so a pattern misses it.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\u034f/g;

/** Cyrillic and Greek letters that look like Latin ones: "pаssword" with a Cyrillic а. */
const LOOKALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  τ: 't',
  υ: 'u',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');
const HAS_LOOKALIKE = new RegExp(LOOKALIKE.source, 'u');

/**
 * The form the rules see: NFKC (full-width digits and letters become ASCII), no invisible
 * characters, and Cyrillic/Greek look-alikes folded to Latin when they sit beside Latin letters
 * (a word written wholly in Cyrillic is left as it is, so "пароль" still reads as Russian).
 */
export function foldLookalikes(text: string): string {
  const t = text.normalize('NFKC').replace(INVISIBLE, '');
  // Most text has no look-alike letter at all: nothing to fold, no word to visit.
  if (!HAS_LOOKALIKE.test(t)) return t;
  return t.replace(/[\p{L}\p{M}]+/gu, (word) =>
    /[a-z]/i.test(word) ? word.replace(LOOKALIKE, (c) => LOOKALIKES[c] ?? c) : word,
  );
}

/**
 * secretlint and its rules, loaded on the first draft scanned (a process may never scan one).
 * Its profiler is switched off: on by default, it leaves a `performance.mark` per rule and per text
 * in Node's global timeline and keeps every entry and measure in arrays of its own, for good
 * (over a million marks while a 100k-chunk knowledge base was classified, and the CPU to match).
 */
let secretlint:
  | Promise<{ lintSource: typeof import('@secretlint/core').lintSource; config: { rules: unknown[] } }>
  | undefined;
const loadSecretlint = () =>
  (secretlint ??= Promise.all([
    import('@secretlint/core'),
    import('@secretlint/secretlint-rule-preset-recommend'),
    import('@secretlint/profiler'),
  ]).then(([core, preset, profiler]) => {
    profiler.secretLintProfiler.setEnabled(false);
    return {
      lintSource: core.lintSource,
      config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] },
    };
  }));

const SECRETLINT_LABELS: Array<[RegExp, string]> = [
  [/privatekey/i, 'a private key'],
  [/database-connection-string|basicauth/i, 'a connection string with credentials'],
];

async function secretlintFindings(text: string): Promise<SensitiveFinding[]> {
  const { lintSource, config } = await loadSecretlint();
  const r = await lintSource({
    source: { content: text, filePath: '/draft.txt', ext: '.txt', contentType: 'text' },
    options: { config: config as never, noPhysicFilePath: true, maskSecrets: true },
  });
  return r.messages.map((m) => ({
    kind: 'secret' as const,
    rule: `secretlint:${m.ruleId.replace('@secretlint/secretlint-rule-', '')}`,
    label: SECRETLINT_LABELS.find(([re]) => re.test(m.ruleId))?.[1] ?? 'an API key or token',
  }));
}

/** Everything in `texts` that looks like a secret or personal data, one finding per rule. */
export async function scanSensitive(texts: string | readonly string[]): Promise<SensitiveFinding[]> {
  const list = (typeof texts === 'string' ? [texts] : texts).filter((t) => t.trim().length > 0);
  const found: SensitiveFinding[] = [];
  for (const raw of list) {
    const folded = foldLookalikes(raw);
    for (const rule of SENSITIVE_RULES)
      if (mayFind(rule.id, folded) && rule.find(folded))
        found.push({ kind: rule.kind, rule: rule.id, label: rule.label });
    found.push(...(await secretlintFindings(folded)));
  }
  const seen = new Set<string>();
  return found.filter((f) => !seen.has(f.rule) && seen.add(f.rule));
}

/** "contains what looks like a password and an e-mail address". */
export function describeFindings(findings: readonly SensitiveFinding[]): string {
  const labels = [...new Set(findings.map((f) => f.label))];
  if (!labels.length) return 'contains nothing that looks like a secret or personal data';
  const list =
    labels.length === 1 ? labels[0]! : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
  return `contains what looks like ${list}`;
}
