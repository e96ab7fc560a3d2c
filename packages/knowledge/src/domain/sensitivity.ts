import type { Embedder } from '@lore/embed';
import { type SensitiveFinding, scanSensitive } from '@lore/kit/moderation';
import type { SensitivityCategory } from '@lore/schema/knowledge';
import { cosine } from '@lore/search';

/**
 * What a passage holds that must never leave without its owner, decided once when it is
 * ingested: the kit's detectors (secretlint's preset, libphonenumber, Lore's credential, e-mail,
 * address, IBAN, card and id rules), word rules for health, pay and personal matters, and — with
 * an embedding model — the passage's sentences compared with prototype sentences of health, pay
 * and personal matters, so that "has type 1 diabetes and keeps insulin in the fridge" is health
 * whether or not a listed word occurs.
 *
 * Bump `SENSITIVITY_RULES_VERSION` whenever a rule, a prototype or a threshold changes: every
 * stored classification of another version is computed again at the next start.
 */
export const SENSITIVITY_RULES_VERSION = 1;

/** The version stamped on a classification: the rules, and the model when one took part. */
export const sensitivityVersion = (model: string | null) =>
  model ? `r${SENSITIVITY_RULES_VERSION}+${model}` : `r${SENSITIVITY_RULES_VERSION}`;

export const CATEGORIES: readonly SensitivityCategory[] = [
  'credentials',
  'contact',
  'health',
  'money',
  'personal',
];

/** Which category each detector of the kit's scanner stands for. */
function categoryOf(f: SensitiveFinding): SensitivityCategory {
  if (f.kind === 'secret') return 'credentials';
  if (f.rule === 'iban' || f.rule === 'card') return 'money';
  if (f.rule === 'national-id') return 'personal';
  return 'contact';
}

/**
 * Health facts about people, in the words people use for them: conditions, treatments, medicines,
 * appointments, leave. Deliberately about persons ("diagnosed", "therapist", "insulin"), not the
 * domain ("health check", "medical imaging pipeline").
 */
const HEALTH_WORDS = new RegExp(
  `\\b(?:${[
    'diabet(?:es|ic)',
    'insulin',
    'asthma',
    'inhaler',
    'epilep(?:sy|tic)',
    'cancer',
    'chemo(?:therapy)?',
    'tumou?r',
    'leukaemia|leukemia',
    'hiv',
    'pregnan(?:t|cy)',
    'miscarriage',
    'maternity\\s+leave',
    'sick\\s+(?:leave|note|day)',
    'on\\s+medical\\s+leave',
    'depress(?:ion|ed)',
    'anti-?depressants?',
    'anxiety\\s+(?:disorder|attacks?)',
    'panic\\s+attacks?',
    'bipolar',
    'schizophreni[ac]',
    'adhd',
    'autis(?:m|tic)',
    'therap(?:ist|y\\s+sessions?)',
    'psychiatr(?:ist|ic)',
    'counsell?(?:ing|or)\\s+(?:for|sessions?)',
    'rehab(?:ilitation)?',
    'addiction',
    'medications?',
    'prescri(?:bed|ption)',
    'surgery',
    'operation\\s+on\\s+(?:his|her|their)',
    'hospitali[sz]ed|in\\s+hospital',
    'allerg(?:y|ic)\\s+to',
    'epipen',
    'migraines?',
    'disabilit(?:y|ies)',
    'wheelchair',
    'physiotherapy',
    'blood\\s+(?:pressure|tests?)',
    'heart\\s+(?:attack|condition)',
    'dementia',
    'chronic\\s+(?:pain|illness|fatigue)',
    'illness',
    'gp\\s+appointment|doctor(?:\\x27s)?\\s+appointment',
    'krank(?:heit|geschrieben)',
    'maladie|enceinte',
    'enfermedad|embarazada',
  ].join('|')})\\b`,
  'i',
);

const AMOUNT =
  '(?:[£$€¥]\\s?\\d[\\d,.]*\\s?(?:k|m|bn|thousand|million)?\\b|\\b\\d[\\d,.]*\\s?(?:k|thousand|million)?\\s?(?:euros?|eur|dollars?|usd|pounds?|gbp|chf|francs?|kr|sek|nok|dkk|yen|inr|rupees?)\\b)';
/** Words that make an amount somebody's pay or debt wherever they stand. */
const PAY_WORD =
  '(?:salar(?:y|ies)|paid|earns?|earning|wages?|bonus(?:es)?|pay\\s+rise|raise\\s+to|compensation|gross|per\\s+annum|day\\s+rate|hourly\\s+rate|invoiced|owes?|debts?|loan|mortgage|overdrawn|stock\\s+options|shares\\s+vesting|gehalt|salaire|sueldo|stipendio)';
/** Words that make it pay only when the sentence is about a person ("costs 500 euros a year" is not). */
const PERIOD_WORD =
  '(?:makes|is\\s+on|a\\s+year|per\\s+year|a\\s+month|per\\s+month|an\\s+hour|per\\s+hour|a\\s+day|package|bills|net)';
const near = (a: string, b: string) => `${a}[^.\\n]{0,60}?${b}|${b}[^.\\n]{0,60}?${a}`;
/** Pay and money of a person: an amount beside a pay word, either way round, in one sentence. */
const PAY = new RegExp(near(PAY_WORD, AMOUNT), 'i');
const PERIOD_PAY = new RegExp(near(PERIOD_WORD, AMOUNT), 'i');
/**
 * An amount anywhere in the text: `PAY` and `PERIOD_PAY` match one (same pattern, same flags),
 * so a text without one is spared their search, both ways round every word (sensitivity.test.ts).
 */
const HAS_AMOUNT = new RegExp(AMOUNT, 'i');
/** A person: a pronoun, a name's possessive, or a first and last name. */
const PERSON_CUE =
  /\b(?:he|she|him|her|his|hers|himself|herself)\b|\b[A-Z][a-z]+['’]s\b|(?:^|[^.]\s)[A-Z][a-z]+\s+[A-Z][a-z]+(?:'s)?\s+(?:makes|earns|is|gets|was|has)\b/m;
const PAY_WORDS_ALONE =
  /\b(?:salary|salaries|pay\s+slips?|payslips?|pay\s+grade|credit\s+score|bankrupt(?:cy)?|in\s+debt|garnish(?:ed|ment))\b/i;

/** Other personal matters: birth dates, family, dismissals, job hunting, convictions, beliefs. */
const PERSONAL_WORDS = new RegExp(
  [
    'born\\s+(?:on|in)\\s+(?:\\d|the\\s+\\d|[A-Z][a-z]+\\s+\\d)',
    'date\\s+of\\s+birth',
    '\\bd\\.?o\\.?b\\.?\\s*[:=]',
    'divorc(?:e|ed|ing)',
    'custody',
    'widow(?:ed|er)?',
    '(?:final|written)\\s+warning',
    'disciplinary',
    'misconduct',
    'performance\\s+improvement\\s+plan',
    '(?:will\\s+be|is\\s+being|to\\s+be)\\s+(?:let\\s+go|laid\\s+off|fired|dismissed|made\\s+redundant)',
    'layoffs?\\s+list',
    'interview(?:ing|s)?\\s+(?:with|at)\\s+[A-Z]',
    'looking\\s+for\\s+another\\s+job',
    'has\\s+not\\s+told\\s+(?:his|her|their)\\s+manager',
    'criminal\\s+record',
    'convicted\\s+(?:of|for)',
    'in\\s+prison',
    'sexual\\s+orientation',
    'religio(?:n|us)\\s+(?:beliefs?|views)',
    'immigration\\s+status',
    'visa\\s+(?:status|expires)',
    'home\\s+address',
  ].join('|'),
  'i',
);

/** The categories the word and form rules find in a passage, without any model. */
export async function classifyByRules(text: string): Promise<SensitivityCategory[]> {
  const found = new Set<SensitivityCategory>();
  for (const f of await scanSensitive(text)) found.add(categoryOf(f));
  if (HEALTH_WORDS.test(text)) found.add('health');
  if (moneyByRules(text)) found.add('money');
  if (PERSONAL_WORDS.test(text)) found.add('personal');
  return CATEGORIES.filter((c) => found.has(c));
}

/**
 * Pay and money of a person by the rules: an amount beside a pay word, a pay word that says it
 * alone, or an amount beside a period in a sentence about a person. `gated: false` runs every
 * search whatever the text (what the gate is tested against).
 */
export function moneyByRules(text: string, gated = true): boolean {
  if (PAY_WORDS_ALONE.test(text)) return true;
  if (gated && !HAS_AMOUNT.test(text)) return false;
  return (
    PAY.test(text) || text.split(/(?<=[.!?])\s+|\n+/).some((s) => PERIOD_PAY.test(s) && PERSON_CUE.test(s))
  );
}

/**
 * Prototype sentences of what the model recognises. Calibrated on the set in
 * test/fixtures/sensitivity-eval.ts (all-MiniLM-L6-v2: health facts about people score 0.26–0.54
 * against these, technical and office sentences at most 0.26; see `SEMANTIC_THRESHOLDS`).
 */
export const PROTOTYPES: Record<'health' | 'money' | 'personal', string[]> = {
  health: [
    'A person has a medical condition and is receiving treatment.',
    'She was diagnosed with an illness and takes medication every day.',
    'He is on sick leave after surgery and sees a doctor regularly.',
    'Her mental health: she has been seeing a therapist for depression and anxiety.',
    'She is expecting a baby and has hospital appointments.',
    'He has a chronic disease and needs injections and regular blood tests.',
  ],
  money: [
    'How much a named employee is paid: their salary per year.',
    'Her annual pay, bonus and compensation package in euros.',
    'He earns this much a month before tax.',
    "A person's bank balance, debts and personal finances.",
  ],
  personal: [
    "A person's date of birth, home life and family circumstances.",
    'Someone is going through a divorce and their family situation.',
    'An employee is being let go or dismissed, or has a disciplinary warning.',
    'Someone is secretly interviewing for another job and has not told their manager.',
  ],
};

/**
 * A sentence is the category when its best prototype scores at least `alone`, or at least
 * `withPerson` when the sentence speaks of a person (he, she, his, her, a name's possessive).
 * Money also needs an amount in the sentence: "the cloud bill" is not anybody's pay.
 */
export const SEMANTIC_THRESHOLDS: Record<
  'health' | 'money' | 'personal',
  { alone: number; withPerson: number }
> = {
  health: { alone: 0.33, withPerson: 0.25 },
  money: { alone: 0.45, withPerson: 0.36 },
  personal: { alone: 0.45, withPerson: 0.38 },
};

const PERSON = PERSON_CUE;

/** The passage's sentences worth embedding: a few words each, at most `SENTENCES_PER_PASSAGE`. */
export const SENTENCES_PER_PASSAGE = 16;
export function sentencesOf(text: string): string[] {
  return text
    .replace(/^#{1,6}\s+.*$/gm, '')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/^[\s>*|-]+/, '').trim())
    .filter((s) => s.split(/\s+/).length >= 4 && /\p{L}/u.test(s))
    .slice(0, SENTENCES_PER_PASSAGE);
}

/**
 * The model's half of the classification: prototype vectors, computed once per embedder. It
 * embeds a passage's sentences, not the passage: one sentence about a person inside a long
 * passage would drown in the passage's vector. Nor does it take a one-sentence chunk's stored
 * vector instead: that vector holds the heading or the file's title too, and judged on it the
 * model recognised 12 (under a name as heading) or 14 (under a title) of the 24 one-sentence
 * health, pay and personal facts of the calibration set, against 15 on the sentence alone.
 */
export class SemanticSensitivity {
  private prototypes: Promise<Record<'health' | 'money' | 'personal', Float32Array[]>> | undefined;

  constructor(private readonly embedder: Embedder) {}

  get model(): string {
    return this.embedder.model;
  }

  private load(signal?: AbortSignal) {
    this.prototypes ??= (async () => {
      const keys = ['health', 'money', 'personal'] as const;
      const all = await this.embedder.embed(
        keys.flatMap((k) => PROTOTYPES[k]),
        signal,
      );
      let at = 0;
      const out = {} as Record<(typeof keys)[number], Float32Array[]>;
      for (const k of keys) {
        out[k] = all.slice(at, at + PROTOTYPES[k].length);
        at += PROTOTYPES[k].length;
      }
      return out;
    })().catch((err) => {
      this.prototypes = undefined;
      throw err;
    });
    return this.prototypes;
  }

  /** The categories the model finds in each passage (by its sentences). */
  async classify(passages: string[], signal?: AbortSignal): Promise<SensitivityCategory[][]> {
    const protos = await this.load(signal);
    const sentences = passages.map(sentencesOf);
    const flat = sentences.flat();
    const vectors = flat.length ? await this.embedder.embed(flat, signal) : [];
    let at = 0;
    return sentences.map((list) => {
      const found = new Set<SensitivityCategory>();
      for (const s of list) {
        const v = vectors[at++]!;
        for (const k of ['health', 'money', 'personal'] as const) {
          const score = Math.max(...protos[k].map((p) => cosine(v, p)));
          const t = SEMANTIC_THRESHOLDS[k];
          const person = PERSON.test(s);
          if (k === 'money' && !HAS_AMOUNT.test(s)) continue;
          if (score >= t.alone || (person && score >= t.withPerson)) found.add(k);
        }
      }
      return CATEGORIES.filter((c) => found.has(c));
    });
  }
}

/** "3 passages hold credentials: answers drawn from them always wait for you." */
export function describeSensitivity(s: Record<SensitivityCategory | 'unclassified', number>): string[] {
  const words: Record<SensitivityCategory, string> = {
    credentials: 'credentials',
    contact: 'personal contact data',
    health: 'health facts',
    money: 'money or pay',
    personal: 'other personal matters',
  };
  const lines = CATEGORIES.filter((c) => s[c] > 0).map(
    (c) =>
      `${s[c]} passage${s[c] === 1 ? ' holds' : 's hold'} ${words[c]}: answers drawn from ${s[c] === 1 ? 'it' : 'them'} always wait for you.`,
  );
  if (s.unclassified > 0)
    lines.push(
      `${s.unclassified} passage${s.unclassified === 1 ? ' is' : 's are'} still being classified: answers drawn from ${s.unclassified === 1 ? 'it' : 'them'} wait for you meanwhile.`,
    );
  return lines;
}
