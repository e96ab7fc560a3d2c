import { createRequire } from 'node:module';
import { isContentTerm, stem, synonymsOf, tokenize } from '@lore/search';
import { LRUCache } from 'lru-cache';

/** Content stems of a text, with the words of the abbreviations and close terms it holds. */
export function stemsWithSynonyms(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of tokenize(text)) if (isContentTerm(t)) out.add(stem(t));
  for (const alt of synonymsOf(text))
    for (const t of tokenize(alt.text)) if (isContentTerm(t)) out.add(stem(t));
  return out;
}

/** One part of a question: "how long should it ferment" in "What ratio, and how long should it ferment?". */
export interface Aspect {
  text: string;
  /** Stems only this part holds: what an answer to it must mention (one of them at least). */
  keys: string[];
}

export interface QuestionShape {
  aspects: Aspect[];
  /** How much each stem of the question counts: names and identifiers most, then nouns and main verbs. */
  weight: Map<string, number>;
  /** Names, acronyms, identifiers and figures the question mentions: stem → the word as written. */
  entityWords: Map<string, string>;
}

// A new part starts at a comma, semicolon or conjunction followed by a question word or an
// auxiliary ("…and how long…", "…, and what happens…"), or at a new sentence.
const PART_BREAK =
  /(?:[?;]\s*|[.!]\s+|,?\s+(?:and|or|but|then|also)\s+(?=(?:what|how|who|whom|whose|when|where|why|which|is|are|was|were|does|do|did|can|could|should|will|would|has|have)\b)|,\s+(?=(?:what|how|who|when|where|why|which)\b))/i;
const IDENTIFIER = /[._]|[a-z][A-Z]|\d/;
const WEAK_VERB = /^(?:be|is|are|was|were|do|does|did|have|has|had|get|go|make|use|happen|work|need|want)$/;

type Term = { text: string; tags: string[] };
type Tagger = (text: string) => { json(): Array<{ terms: Term[] }> };

// The tagger (compromise's part-of-speech layer) loads on the first question, not when a service
// that never drafts imports the kit.
let tagger: Tagger | undefined;
function tag(text: string) {
  tagger ??= createRequire(import.meta.url)('compromise/two') as Tagger;
  return tagger(text).json();
}

function roleWeight(term: Term): { weight: number; entity: boolean } {
  const tags = new Set(term.tags);
  const figure = tags.has('Value') && /\d/.test(term.text);
  if (IDENTIFIER.test(term.text) || tags.has('ProperNoun') || tags.has('Acronym') || figure)
    return { weight: 2, entity: true };
  if (tags.has('Noun')) return { weight: 1.5, entity: false };
  if (tags.has('Verb') && !tags.has('Auxiliary') && !tags.has('Copula') && !tags.has('Modal'))
    return { weight: WEAK_VERB.test(term.text.toLowerCase()) ? 1 : 1.5, entity: false };
  return { weight: 1, entity: false };
}

// The shapes of the questions asked most recently (a question is often asked again, a draft re-run).
const shapes = new LRUCache<string, QuestionShape>({ max: 500 });

/**
 * The parts of a question and what each word of it weighs. The part-of-speech tags come from
 * compromise (a small rule-based English tagger): names, acronyms, identifiers (`app.use`,
 * `snake_case`, `camelCase`) and figures weigh most, then nouns (the objects asked about) and the
 * main verbs, then everything else; auxiliaries and stop words are not terms at all.
 */
export function questionShape(question: string): QuestionShape {
  const hit = shapes.get(question);
  if (hit) return hit;
  const weight = new Map<string, number>();
  const entityWords = new Map<string, string>();
  const doc = tag(question);
  for (const sentence of doc)
    for (const term of sentence.terms) {
      const role = roleWeight(term);
      for (const t of tokenize(term.text)) {
        if (!isContentTerm(t)) continue;
        const s = stem(t);
        weight.set(s, Math.max(weight.get(s) ?? 0, role.weight));
        if (role.entity && !entityWords.has(s)) entityWords.set(s, term.text.replace(/[?.!,;:]+$/, ''));
      }
    }
  for (const t of tokenize(question)) if (isContentTerm(t) && !weight.has(stem(t))) weight.set(stem(t), 1);

  const parts = question
    .split(PART_BREAK)
    .map((p) => p.trim().replace(/[?.!,;:]+$/, ''))
    .filter((p) => tokenize(p).some(isContentTerm));
  const partStems = parts.map((p) => new Set(tokenize(p).filter(isContentTerm).map(stem)));
  const aspects = parts.map((text, i) => ({
    text,
    keys: [...partStems[i]!].filter((s) => !partStems.some((o, j) => j !== i && o.has(s))),
  }));
  const shape = { aspects: aspects.length > 1 ? aspects : [], weight, entityWords };
  shapes.set(question, shape);
  return shape;
}

/** Whether text with these stems speaks to the aspect: it mentions one of the part's own words (or a close term). */
export function coversAspect(aspect: Aspect, stems: ReadonlySet<string>): boolean {
  return aspect.keys.length === 0 || aspect.keys.some((k) => stems.has(k));
}

// Parts that ask for a figure ("how long", "how often", "when") are answered by one, whatever its words.
const ASKS_FIGURE =
  /^(?:how (?:long|often|many|much|fast|big|large|old|far|soon)|when|what (?:time|year|size|date))\b|\b(?:cost|costs|price|prices|fee|fees)\b/i;
const FIGURE =
  /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|hundred|thousand|million|billion|daily|weekly|monthly|yearly|hourly|every|once|twice)\b/i;
const ASKS_INSTANCE = /^(?:which|what)\s+(?!is\b|are\b|was\b|were\b|does\b|do\b|did\b)([\p{L}-]+)/iu;
// Words a question uses for any subject: a part asking only these says nothing the passages must repeat.
const GENERIC = new Set(
  (
    'result outcome help happen change work cause fix mean use need way thing reason effect benefit differ ' +
    'difference matter policy rule process procedure step option detail kind type example advantage'
  )
    .split(' ')
    .map(stem),
);

/**
 * Whether no passage can answer the aspect: none of the part's own words (or close terms) is in
 * the passages, it does not ask for a figure that the passages give, and it names something
 * specific (not only "what was the result").
 */
export function aspectUnanswered(
  aspect: Aspect,
  passageStems: ReadonlySet<string>,
  passages: string,
): boolean {
  if (coversAspect(aspect, passageStems)) return false;
  if (ASKS_FIGURE.test(aspect.text) && FIGURE.test(passages)) return false;
  // "which foods help" asks for instances of its noun ("lentils"), which rarely repeat the noun.
  const head = ASKS_INSTANCE.exec(aspect.text)?.[1];
  const asked = head ? stem(head.toLowerCase()) : '';
  return aspect.keys.some((k) => !GENERIC.has(k) && k !== asked);
}
