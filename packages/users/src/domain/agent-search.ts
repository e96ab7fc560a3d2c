import type { Capabilities, ExpertiseLevel } from '@lore/schema/users';
import { isContentTerm, synonymsOf, tokenize } from '@lore/search';
import { terms } from './discovery.js';

/** What agent_search needs to know about an agent: a local profile or another node's card. */
export interface Searchable {
  handle: string;
  displayName: string;
  bio: string;
  skills: Array<{ name: string; level: string }>;
  interests: string[];
  location?: string | null;
  /** Unknown for other nodes' cards: a capability criterion then does not match. */
  capabilities?: Capabilities | null;
}

export interface SearchCriteria {
  skills?: string[];
  interests?: string[];
  location?: string;
  capabilities?: string[];
  query?: string;
  limit: number;
  offset: number;
}

export type SearchField = 'skills' | 'interests' | 'capabilities' | 'location' | 'name' | 'bio';

/** How well an agent fits a search, and why: the agent's own words that matched, by field. */
export interface SearchFit {
  /** 0..100: the mean of how well each criterion (and each word of `query`) is met. */
  score: number;
  matched: Array<{ field: SearchField; terms: string[] }>;
  why: string;
}

const LEVEL: Record<string, number> = { expert: 1, intermediate: 0.85, beginner: 0.7 };
/** How much a word of `query` found in each field counts: what an agent lists beats what it mentions. */
const FIELD_WEIGHT: Record<Exclude<SearchField, 'capabilities'>, number> = {
  skills: 1,
  interests: 0.9,
  name: 0.8,
  bio: 0.6,
  location: 0.5,
};

const lc = (s: string) => s.trim().toLowerCase();

/**
 * How closely a label answers a wanted term: the same words 1, the same thing said another way
 * (an abbreviation or close term: NLP ~ natural language processing, k8s ~ Kubernetes) 0.9, one
 * holding the other ("learning" in "machine learning") 0.7, else 0.
 */
export function labelFit(label: string, wanted: string): number {
  const a = lc(label);
  const b = lc(wanted);
  if (!a || !b) return 0;
  if (a === b) return 1;
  const A = terms(label);
  const B = terms(wanted);
  if (A.size && B.size) {
    const within = (x: ReadonlySet<string>, y: ReadonlySet<string>) => [...x].every((t) => y.has(t));
    if (within(A, B) && within(B, A)) return 0.9;
    if (within(B, A) || within(A, B)) return 0.7;
  }
  return b.length >= 3 && a.includes(b) ? 0.7 : 0;
}

function bestLabel(labels: string[], wanted: string): { label: string; fit: number } | null {
  let best: { label: string; fit: number } | null = null;
  for (const label of labels) {
    const fit = labelFit(label, wanted);
    if (fit > (best?.fit ?? 0)) best = { label, fit };
  }
  return best;
}

function capabilityOf(a: Searchable, cap: string): string | null {
  if (!a.capabilities) return null;
  const key = cap.startsWith('can_') ? cap : `can_${cap}`;
  if ((a.capabilities as unknown as Record<string, unknown>)[key] === true) return key;
  return a.capabilities.other.find((o) => lc(o) === lc(cap)) ?? null;
}

/** The words of a free-text query (common words dropped), each with its abbreviations and close terms. */
function queryWords(query: string): string[][] {
  return [...new Set(tokenize(query).filter(isContentTerm))].map((t) => [
    t,
    ...synonymsOf(t).map((alt) => alt.text),
  ]);
}

function fieldTexts(a: Searchable): Array<[Exclude<SearchField, 'capabilities'>, string[]]> {
  return [
    ['skills', a.skills.map((s) => s.name)],
    ['interests', a.interests],
    ['name', [a.handle, a.displayName]],
    ['bio', [a.bio]],
    ['location', a.location ? [a.location] : []],
  ];
}

/** Whether a text holds a query word (or one of its alternatives): as a word, or inside a longer one. */
function holds(text: string, alts: string[]): boolean {
  const T = terms(text);
  const low = lc(text);
  return alts.some((alt) => {
    const words = [...terms(alt)];
    if (words.length && words.every((w) => T.has(w))) return true;
    return alt.length >= 4 && low.includes(alt);
  });
}

/**
 * Whether the agent meets every criterion, and how well: each skill and interest wanted scores
 * by its best label (and a skill by its level), each capability and the location by being there,
 * each word of `query` by the best field holding it (skills, then interests, name, bio,
 * location). A query also matches when said another way as a whole ("natural language
 * processing" → "nlp"). `null` when a criterion is not met.
 */
export function fitAgent(a: Searchable, c: SearchCriteria): SearchFit | null {
  const parts: number[] = [];
  const matched = new Map<SearchField, Set<string>>();
  const note = (field: SearchField, term: string) => {
    const set = matched.get(field) ?? new Set<string>();
    set.add(term);
    matched.set(field, set);
  };
  for (const wanted of c.skills ?? []) {
    let best: { label: string; fit: number; level: string } | null = null;
    for (const s of a.skills) {
      const fit = labelFit(s.name, wanted) * (LEVEL[s.level as ExpertiseLevel] ?? 0.85);
      if (fit > (best?.fit ?? 0)) best = { label: s.name, fit, level: s.level };
    }
    if (!best) return null;
    parts.push(best.fit);
    note('skills', best.level === 'intermediate' ? best.label : `${best.label} (${best.level})`);
  }
  for (const wanted of c.interests ?? []) {
    const best = bestLabel(a.interests, wanted);
    if (!best) return null;
    parts.push(best.fit);
    note('interests', best.label);
  }
  if (c.location) {
    if (!a.location || !lc(a.location).includes(lc(c.location))) return null;
    parts.push(1);
    note('location', a.location);
  }
  for (const cap of c.capabilities ?? []) {
    const has = capabilityOf(a, cap);
    if (!has) return null;
    parts.push(1);
    note('capabilities', has);
  }
  // A query of common words only ("the") says nothing to match.
  if (c.query?.trim() && (queryWords(c.query).length || synonymsOf(c.query).length)) {
    const fields = fieldTexts(a);
    const scoreWords = (groups: string[][]): number[] | null => {
      const out: number[] = [];
      for (const alts of groups) {
        let best = 0;
        for (const [field, texts] of fields) {
          const hit = texts.find((t) => holds(t, alts));
          if (!hit) continue;
          if (FIELD_WEIGHT[field] > best) best = FIELD_WEIGHT[field];
          note(field, field === 'bio' ? alts[0]! : hit);
        }
        if (!best) return null;
        out.push(best);
      }
      return out;
    };
    const restated = synonymsOf(c.query).map((alt) => [[alt.text]]);
    const words = queryWords(c.query);
    const scores =
      (words.length ? scoreWords(words) : null) ?? restated.map(scoreWords).find((s) => s !== null);
    if (!scores) return null;
    parts.push(...scores);
  }
  const score = parts.length ? Math.round((100 * parts.reduce((x, y) => x + y, 0)) / parts.length) : 0;
  const list = [...matched].map(([field, t]) => ({ field, terms: [...t] }));
  const why = list.length
    ? `matched ${list.map((m) => `${m.field}: ${m.terms.join(', ')}`).join('; ')}`
    : 'no criteria: most recently active first';
  return { score, matched: list, why };
}

/** The agents meeting every criterion, best fit first; ties keep the order given (most recently active first). */
export function rankAgents<T extends Searchable>(
  agents: T[],
  c: SearchCriteria,
): Array<{ agent: T; fit: SearchFit }> {
  return agents
    .map((agent, i) => ({ agent, fit: fitAgent(agent, c), i }))
    .filter((r): r is { agent: T; fit: SearchFit; i: number } => r.fit !== null)
    .sort((x, y) => y.fit.score - x.fit.score || x.i - y.i)
    .map(({ agent, fit }) => ({ agent, fit }));
}
