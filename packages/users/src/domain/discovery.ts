import type { DiscoveryGoal } from '@lore/schema/community';
import type { ExpertiseLevel, Skill } from '@lore/schema/users';
import { isContentTerm, stem, synonymsOf, tokenize } from '@lore/search';
import { LRUCache } from 'lru-cache';

/** What discovery knows about an agent: its declared profile and the topics of its knowledge. */
export interface Candidate {
  id: string;
  handle: string;
  displayName: string;
  bio: string;
  skills: Skill[];
  interests: string[];
  knowledge: string[];
  /** What the agent says it can do: "write code", "browse web", its own (translation…). */
  capabilities?: string[];
}

export interface Component {
  name: string;
  weight: number;
  value: number;
  points: number;
  detail: string;
}

export interface Match {
  candidate: Candidate;
  /** 0..100, the rounded sum of the components' points. */
  score: number;
  raw: number;
  breakdown: Component[];
  why: string[];
  /** The candidate's own labels that meet the topic (or the caller's interests), by field. */
  matched: Array<{
    field: 'skills' | 'interests' | 'capabilities' | 'knowledge' | 'bio';
    terms: string[];
  }>;
  /** With a topic: which signals put the candidate on it (its words, its profile's meaning). */
  foundBy?: Array<'words' | 'meaning'>;
}

/**
 * The profile similarity (cosine, all-MiniLM-L6-v2) at which the topic component counts in full
 * by meaning; below it the component is the similarity's share of it (from the least similarity
 * that counts at all, `PROFILE_MIN_SIMILARITY`, about half).
 */
export const MEANING_FULL_SIMILARITY = 0.6;

export const LEVEL_RANK: Record<ExpertiseLevel, number> = { beginner: 1, intermediate: 2, expert: 3 };
const LEVEL_WEIGHT: Record<ExpertiseLevel, number> = { beginner: 0.3, intermediate: 0.6, expert: 1 };

/**
 * Each goal weighs the components differently (the weights of a goal add up to 1; without a
 * topic the topic weight is dropped and the rest scaled back up to 1):
 * - collaborate: shared interests and complementary skills, then overlapping skills;
 * - learn: they have skills you lack (or have at a higher level);
 * - teach: they are interested in what you are skilled at (and know it less well);
 * - hire: they have the skill you need, weighted by expertise.
 */
export const GOAL_WEIGHTS: Record<DiscoveryGoal, Record<string, number>> = {
  collaborate: { topic: 0.3, sharedInterests: 0.25, complementarySkills: 0.2, sharedSkills: 0.15, bio: 0.1 },
  learn: { topic: 0.3, theyHaveWhatYouLack: 0.5, sharedInterests: 0.1, bio: 0.1 },
  teach: { topic: 0.3, theyWantWhatYouHave: 0.5, sharedInterests: 0.1, bio: 0.1 },
  hire: { topic: 0.3, skillMatch: 0.6, bio: 0.1 },
};

export const GOAL_NOUN: Record<DiscoveryGoal, string> = {
  collaborate: 'collaboration',
  learn: 'learning',
  teach: 'teaching',
  hire: 'hiring',
};

export function weightsFor(goal: DiscoveryGoal, hasTopic: boolean): Record<string, number> {
  const base = { ...GOAL_WEIGHTS[goal] };
  if (hasTopic) return base;
  delete base.topic;
  const sum = Object.values(base).reduce((a, b) => a + b, 0);
  return Object.fromEntries(Object.entries(base).map(([k, v]) => [k, round(v / sum, 4)]));
}

// Bounded by maxSize (one per entry): `max` would allocate the arrays of all 20,000 entries at load.
const termCache = new LRUCache<string, ReadonlySet<string>>({ maxSize: 20_000, sizeCalculation: () => 1 });

/**
 * Content words of a text, crudely singularised so "transformers" meets "transformer", with the
 * words of their abbreviations and close terms from the kit's synonym list: "NLP" also holds
 * natural, language, processing, and "natural language processing" also holds nlp, so either
 * finds the other. Memoised: discovery compares the same labels thousands of times per call.
 */
export function terms(text: string): ReadonlySet<string> {
  const hit = termCache.get(text);
  if (hit) return hit;
  const out = new Set(tokenize(text).filter(isContentTerm).map(stem));
  for (const alt of synonymsOf(text))
    for (const w of tokenize(alt.text)) if (isContentTerm(w)) out.add(stem(w));
  termCache.set(text, out);
  return out;
}

const subset = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size > 0 && [...a].every((x) => b.has(x));
const meets = (a: ReadonlySet<string>, b: ReadonlySet<string>) => [...a].some((x) => b.has(x));

/** Two labels name the same thing when the words of one are all among the other's ("nlp" ~ "NLP", "learning" ~ "machine learning"). */
export function sameLabel(a: string, b: string): boolean {
  const A = terms(a);
  const B = terms(b);
  if (!A.size || !B.size) return a.trim().toLowerCase() === b.trim().toLowerCase();
  return subset(A, B) || subset(B, A);
}

/** Whether a skill answers a search for `query`: all the query's words are in the skill's name. */
export function skillMatches(skill: string, query: string): boolean {
  const Q = terms(query);
  if (!Q.size) return skill.trim().toLowerCase() === query.trim().toLowerCase();
  return subset(Q, terms(skill));
}

const levelled = (s: Skill) => (s.level === 'intermediate' ? s.name : `${s.name} (${s.level})`);
const list = (xs: string[], n = 4) =>
  xs.slice(0, n).join(', ') + (xs.length > n ? ` and ${xs.length - n} more` : '');
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

interface Facts {
  value: number;
  detail: string;
}

/**
 * How well `x` fits `me` for `goal` (and `topic`): a deterministic sum of weighted components,
 * each with the facts behind it. `null` when a topic was given and `x` has nothing to do with it.
 */
export function scoreCandidate(
  me: Candidate,
  x: Candidate,
  goal: DiscoveryGoal,
  topic: string | undefined,
  /** How close the candidate's profile is to the topic in meaning, when it is close enough to count. */
  similarity?: number,
): Match | null {
  const topicTerms: ReadonlySet<string> = topic ? terms(topic) : new Set<string>();
  const hasTopic = topicTerms.size > 0;
  const weights = weightsFor(goal, hasTopic);
  // What the caller cares about: the topic when given, else its interests.
  const focus = hasTopic ? topicTerms : terms(me.interests.join(' '));
  const onFocus = (label: string) => focus.size === 0 || meets(terms(label), focus);
  const mySkill = (name: string) => me.skills.find((s) => sameLabel(s.name, name));
  const theirSkill = (name: string) => x.skills.find((s) => sameLabel(s.name, name));

  const facts: Record<string, () => Facts> = {
    topic: () => {
      const labels = terms(
        [...x.skills.map((s) => s.name), ...x.interests, ...(x.capabilities ?? []), ...x.knowledge].join(' '),
      );
      const bio = terms(x.bio);
      const inLabels = [...topicTerms].filter((t) => labels.has(t));
      const inBio = [...topicTerms].filter((t) => !labels.has(t) && bio.has(t));
      const byWords = (inLabels.length + 0.5 * inBio.length) / topicTerms.size;
      const byMeaning = similarity === undefined ? 0 : Math.min(1, similarity / MEANING_FULL_SIMILARITY);
      // Said with the agent's own labels: "nlp in skills" for the topic "natural language processing".
      const parts = matchedFields(x, topicTerms)
        .filter((m) => m.field !== 'bio')
        .map((m) => `${list(m.terms)} in ${m.field}`);
      if (inBio.length) parts.push(`${inBio.join(', ')} in bio`);
      if (similarity !== undefined)
        parts.push(`profile close in meaning (similarity ${similarity.toFixed(2)})`);
      return { value: Math.max(byWords, byMeaning), detail: `On topic: ${parts.join('; ') || 'no match'}` };
    },
    sharedInterests: () => {
      const shared = x.interests.filter((i) => me.interests.some((m) => sameLabel(m, i)));
      const denom = Math.min(me.interests.length, x.interests.length);
      return {
        value: denom ? shared.length / denom : 0,
        detail: `Shared interests: ${list(shared) || 'none'}`,
      };
    },
    sharedSkills: () => {
      const shared = x.skills.filter((s) => mySkill(s.name)).map((s) => s.name);
      const denom = Math.min(me.skills.length, x.skills.length);
      return {
        value: denom ? shared.length / denom : 0,
        detail: `Overlapping skills in ${list(shared) || 'nothing'}`,
      };
    },
    complementarySkills: () => {
      const lacking = x.skills.filter((s) => !mySkill(s.name));
      const relevant = lacking.filter((s) => focus.size > 0 && meets(terms(s.name), focus));
      const value = Math.min(1, (relevant.length + 0.25 * (lacking.length - relevant.length)) / 3);
      return { value, detail: `Complementary skills you lack: ${list(lacking.map(levelled)) || 'none'}` };
    },
    theyHaveWhatYouLack: () => {
      const teachable = x.skills.filter((s) => {
        const mine = mySkill(s.name);
        return (!mine || LEVEL_RANK[mine.level] < LEVEL_RANK[s.level]) && onFocus(s.name);
      });
      const value = Math.min(1, teachable.reduce((n, s) => n + LEVEL_WEIGHT[s.level], 0) / 2);
      return { value, detail: `Has what you lack: ${list(teachable.map(levelled)) || 'nothing'}` };
    },
    theyWantWhatYouHave: () => {
      const wanted = me.skills.filter((s) => {
        if (hasTopic && !meets(terms(s.name), topicTerms)) return false;
        const wants = x.interests.some((i) => sameLabel(i, s.name) || meets(terms(i), terms(s.name)));
        const theirs = theirSkill(s.name);
        return wants && (!theirs || LEVEL_RANK[theirs.level] < LEVEL_RANK[s.level]);
      });
      const value = Math.min(1, wanted.reduce((n, s) => n + LEVEL_WEIGHT[s.level], 0) / 2);
      return { value, detail: `Wants to learn what you know: ${list(wanted.map(levelled)) || 'nothing'}` };
    },
    skillMatch: () => {
      const needed = hasTopic ? topicTerms : terms([...me.interests].join(' '));
      const matched = x.skills
        .filter((s) => needed.size > 0 && meets(terms(s.name), needed))
        .sort((a, b) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level]);
      const best = matched[0];
      const value = best ? Math.min(1, LEVEL_WEIGHT[best.level] + 0.1 * (matched.length - 1)) : 0;
      return { value, detail: `Skill match: ${list(matched.map(levelled)) || 'none'}` };
    },
    bio: () => {
      const mine = terms(me.bio);
      const shared = [...terms(x.bio)].filter((t) => mine.has(t));
      return { value: Math.min(1, shared.length / 5), detail: `Bios share: ${list(shared, 5) || 'nothing'}` };
    },
  };

  const breakdown: Component[] = Object.entries(weights).map(([name, weight]) => {
    const f = facts[name]!();
    const value = round(Math.max(0, Math.min(1, f.value)), 3);
    return { name, weight, value, points: round(weight * value * 100, 2), detail: f.detail };
  });
  if (hasTopic && (breakdown.find((c) => c.name === 'topic')?.value ?? 0) === 0) return null;
  const raw = breakdown.reduce((n, c) => n + c.points, 0);
  const why = [...breakdown]
    .filter((c) => c.value > 0)
    .sort((a, b) => b.points - a.points)
    .map((c) => c.detail);
  const matched = matchedFields(x, focus);
  const match: Match = { candidate: x, score: Math.round(raw), raw, breakdown, why, matched };
  if (hasTopic) {
    const foundBy: Array<'words' | 'meaning'> = [];
    if (matched.length) foundBy.push('words');
    if (similarity !== undefined) foundBy.push('meaning');
    match.foundBy = foundBy;
  }
  return match;
}

function matchedFields(x: Candidate, focus: ReadonlySet<string>): Match['matched'] {
  if (!focus.size) return [];
  const out: Match['matched'] = [];
  const fields = [
    ['skills', x.skills.map((s) => s.name)],
    ['interests', x.interests],
    ['capabilities', x.capabilities ?? []],
    ['knowledge', x.knowledge],
  ] as const;
  for (const [field, labels] of fields) {
    const hit = labels.filter((l) => meets(terms(l), focus));
    if (hit.length) out.push({ field, terms: [...new Set(hit)] });
  }
  const bio = terms(x.bio);
  const inBio = [...focus].filter((t) => bio.has(t));
  if (inBio.length) out.push({ field: 'bio', terms: inBio });
  return out;
}

/** Best matches first; ties broken by handle so the order never wobbles. */
export function rank(
  me: Candidate,
  others: Candidate[],
  goal: DiscoveryGoal,
  topic: string | undefined,
  /** Candidates whose profile is close to the topic in meaning, by id, with the similarity. */
  meaning?: ReadonlyMap<string, number> | null,
): Match[] {
  return others
    .filter((o) => o.id !== me.id)
    .map((o) => scoreCandidate(me, o, goal, topic, meaning?.get(o.id)))
    .filter((m): m is Match => m !== null && m.raw > 0)
    .sort((a, b) => b.raw - a.raw || (a.candidate.handle < b.candidate.handle ? -1 : 1));
}
