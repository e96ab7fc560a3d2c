import { HANDLE_PATTERN } from '@lore/schema/common';
import { STOP_WORDS, singular, stem as stemWord } from '@lore/search';
import { type Category, TOPIC_CATEGORIES, TRAIT_CATEGORIES } from './categories.js';
import {
  ANYONE,
  CONNECTION_WORDS,
  CONNECTORS,
  DENY,
  FILLER,
  GENERIC_SENDERS,
  MARKERS,
  OBJECTS,
  PREPOSITIONS,
  PRONOUNS,
  QUANTIFIERS,
  type SegmentKind,
  TOPIC_LEAD,
  TOPIC_NOISE,
  TOPIC_TAIL,
} from './lexicon.js';

/**
 * A set of words to look for: every group must be present, a group is present when any of
 * its alternatives is. A category is one group of many words; a phrase is one group per word.
 */
export interface Matcher {
  label: string;
  groups: string[][];
}

export interface Interpretation {
  effect: 'allow' | 'deny';
  senders: {
    handles: string[];
    /**
     * The agents the handles named when the condition was added: a condition binds ids, so an
     * agent registering a named handle later (or taking it over) is not the one it meant.
     * Conditions kept from before binding have none, and never match by handle.
     */
    agents?: Array<{ handle: string; id: string }>;
    /** Traits the asker's own profile must show: what askers say about themselves. */
    traits: Matcher[];
    /** "from my connections": agents connected to the owner with connect_agents (both sides). */
    connections?: boolean;
  };
  topics: Matcher[];
  /** Parts the interpreter cannot decide (they keep matching queries pending). */
  undecidable: string[];
}

export type Tri = 'match' | 'no-match' | 'unknown';

/** Lore's stemmer (`@lore/search`), the same on both sides of a comparison, over lower case. */
export const stem = (token: string): string => stemWord(token.toLowerCase());

function words(sentence: string): string[] {
  return (
    sentence
      .toLowerCase()
      .replace(/[’']/g, "'")
      .match(/@?[\p{L}\p{N}_]+(?:'[a-z]+)?|[,&/]/gu) ?? []
  );
}

function splitItems(ws: string[]): string[][] {
  const items: string[][] = [[]];
  for (const w of ws) {
    if (CONNECTORS.has(w)) items.push([]);
    else items[items.length - 1]!.push(w);
  }
  return items.filter((i) => i.length > 0);
}

function categoryMatcher(label: string, c: Category): Matcher {
  return {
    label: `${label} (${c.terms.slice(0, 6).join(', ')}${c.terms.length > 6 ? ', …' : ''})`,
    groups: [c.terms],
  };
}

function matcherFor(ws: string[], lexicon: Record<string, Category>): Matcher {
  if (ws.length === 1 && lexicon[ws[0]!]) return categoryMatcher(ws[0]!, lexicon[ws[0]!]!);
  const groups = ws.map((w) => lexicon[w]?.terms ?? lexicon[singular(w)]?.terms ?? [w]);
  return { label: `"${ws.join(' ')}"`, groups };
}

/**
 * Reads a condition without a model. It understands who may ask ("from alice", "from any
 * user", "from academic users") and what about ("about quantum computing", "related to
 * programming", "scientific questions"); anything else is kept as an undecidable part.
 * `isHandle` tells apart a one-word sender that is a registered agent from a plural trait.
 */
export function interpret(sentence: string, isHandle: (h: string) => boolean = () => false): Interpretation {
  const lower = sentence.toLowerCase().replace(/[’]/g, "'");
  const out: Interpretation = {
    effect: DENY.test(lower) ? 'deny' : 'allow',
    senders: { handles: [], traits: [] },
    topics: [],
    undecidable: [],
  };
  const ws = words(sentence);
  const segments: Array<{ kind: SegmentKind; marker: string; words: string[] }> = [
    { kind: 'head', marker: '', words: [] },
  ];
  for (let i = 0; i < ws.length; ) {
    const hit = MARKERS.find(([m]) => m.every((w, k) => ws[i + k] === w));
    // Inside a topic, prepositions belong to the phrase ("advances in quantum computing").
    const current = segments[segments.length - 1]!;
    if (hit && !(hit[1] === 'other' && PREPOSITIONS.has(hit[0][0]!) && current.kind === 'topic')) {
      segments.push({ kind: hit[1], marker: hit[0].join(' '), words: [] });
      i += hit[0].length;
    } else {
      segments[segments.length - 1]!.words.push(ws[i]!);
      i++;
    }
  }

  for (const [idx, seg] of segments.entries()) {
    if (seg.kind === 'head') {
      readHead(seg.words, out);
      continue;
    }
    if (seg.kind === 'topic') {
      readTopics(seg.words, out, `${seg.marker} ${seg.words.join(' ')}`);
      continue;
    }
    if (seg.kind === 'sender') {
      readSenders(seg.words, out, isHandle);
      continue;
    }
    // "from users who are academics": the trait comes after the generic noun.
    const prev = segments[idx - 1];
    if (
      (seg.marker === 'who' || seg.marker === 'that') &&
      prev?.kind === 'sender' &&
      ['are', 'is'].includes(seg.words[0] ?? '')
    ) {
      const trait = seg.words.slice(1).filter((w) => !QUANTIFIERS.has(w));
      if (trait.length) {
        out.senders.traits.push(matcherFor(trait.map(singular), TRAIT_CATEGORIES));
        continue;
      }
    }
    const text = [seg.marker, ...seg.words].join(' ').trim();
    if (seg.words.some((w) => !FILLER.has(w))) out.undecidable.push(text);
  }
  return out;
}

function readHead(ws: string[], out: Interpretation) {
  const lastObject = ws.reduce((at, w, i) => (OBJECTS.has(w) ? i : at), -1);
  const before = (lastObject >= 0 ? ws.slice(0, lastObject) : []).filter((w) => !FILLER.has(w));
  const after = (lastObject >= 0 ? ws.slice(lastObject + 1) : ws).filter((w) => !FILLER.has(w));
  // "Accept programming questions": words qualifying the object are its topic.
  if (before.length) readTopics(before, out, before.join(' '));
  if (after.length) out.undecidable.push(after.join(' '));
}

function readTopics(ws: string[], out: Interpretation, original: string) {
  let start = 0;
  while (start < ws.length && TOPIC_LEAD.has(ws[start]!)) start++;
  let end = ws.length;
  while (end > start && TOPIC_TAIL.has(ws[end - 1]!)) end--;
  const items = splitItems(ws.slice(start, end)).map((item) =>
    item.filter((w) => !STOP_WORDS.has(w) && !TOPIC_NOISE.has(w)),
  );
  const usable = items.filter((i) => i.length > 0);
  if (!usable.length) {
    if (ws.some((w) => !FILLER.has(w) && !TOPIC_LEAD.has(w) && !TOPIC_TAIL.has(w)))
      out.undecidable.push(original.trim());
    return;
  }
  for (const item of usable) out.topics.push(matcherFor(item, TOPIC_CATEGORIES));
}

/** Senders: handles, traits ("academic users"), or anyone (which adds no restriction). */
function readSenders(ws: string[], out: Interpretation, isHandle: (h: string) => boolean): void {
  for (const raw of splitItems(ws)) {
    let item = raw;
    while (item.length && QUANTIFIERS.has(item[0]!)) item = item.slice(1);
    if (!item.length || item.every((w) => ANYONE.has(w))) continue;
    let generic = false;
    while (item.length && GENERIC_SENDERS.has(item[item.length - 1]!)) {
      item = item.slice(0, -1);
      generic = true;
    }
    if (!item.length) continue;
    if (raw.some((w) => CONNECTION_WORDS.has(w))) {
      out.senders.connections = true;
      continue;
    }
    if (raw.some((w) => PRONOUNS.has(w))) {
      out.undecidable.push(`from ${raw.join(' ')}`);
      continue;
    }
    if (generic || item.length > 1) {
      out.senders.traits.push(matcherFor(item.map(singular), TRAIT_CATEGORIES));
      continue;
    }
    const w = item[0]!;
    const handle = w.replace(/^@/, '');
    const looksLikeHandle = w.startsWith('@') || /[_0-9]/.test(w) || isHandle(handle);
    if (!looksLikeHandle && (TRAIT_CATEGORIES[w] || (w.length > 3 && w.endsWith('s')))) {
      out.senders.traits.push(matcherFor([singular(w)], TRAIT_CATEGORIES));
    } else if (HANDLE_PATTERN.test(handle)) {
      out.senders.handles.push(handle);
    } else {
      out.undecidable.push(`from ${item.join(' ')}`);
    }
  }
}

/** How the interpreter reads a condition, in words, for the owner to check at add time. */
export function describe(i: Interpretation) {
  const who = [
    ...i.senders.handles.map((h) => `@${h}`),
    ...(i.senders.connections ? ['your connections (connect_agents, both sides)'] : []),
    ...i.senders.traits.map(
      (t) => `users whose profile mentions ${t.label} (relies on what askers say about themselves)`,
    ),
  ];
  const senders = who.length ? who.join(' or ') : 'any user';
  const topics = i.topics.length ? i.topics.map((t) => t.label).join(' or ') : 'any topic';
  return { effect: i.effect, senders, topics, undecidable: i.undecidable };
}
