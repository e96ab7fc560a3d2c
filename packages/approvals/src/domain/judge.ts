import type { TopicMeaning } from '@lore/schema/knowledge-events';
import { tokenize } from '@lore/search';
import { TOPIC_CATEGORIES } from './categories.js';
import { type Interpretation, type Matcher, stem, type Tri } from './interpret.js';
import { allowByMeaning, denyByMeaning, sourceAboutByMeaning } from './meaning.js';
import { requestsOf } from './request.js';

/** What a condition is judged against. */
export interface Facts {
  askerId?: string;
  askerHandle: string;
  profile: { displayName: string; bio: string; skills: string[]; interests: string[] } | null;
  question: string;
  /** The draft's source names and cited excerpts. */
  sources: string[];
  excerpts: string[];
  /** The draft itself. */
  draft?: string;
  /**
   * What each cited source is about: its name, keywords and the owner's summary (absent:
   * unknown), and the broad subjects its passages are about by meaning (null: no model).
   */
  sourceTopics?: Array<{ name: string; words: string[]; summary?: string; subjects?: string[] | null }>;
  /**
   * What the cited passages hold by their classification at ingest (health, money…) and what
   * the cited sources are about by meaning: a deny about a subject holds on them whatever the
   * question says.
   */
  passageSubjects?: string[];
  /** Whether the asker is one of the owner's connections (null: could not be checked). */
  connected?: boolean | null;
  /**
   * How close the conditions' topics are by meaning to the draft and its cited passages
   * (`unavailable`: the model failed, so a deny is in doubt); absent: words alone.
   */
  meaning?: TopicMeaning;
}

/** The result of one condition for one query; `outside` names cited sources a topic does not cover. */
export interface Judgement {
  result: Tri;
  reason: string;
  outside?: string[];
}

/** The words of a text, stemmed, for matching. */
export function stems(texts: string[]): Set<string> {
  const s = new Set<string>();
  for (const t of texts) for (const tok of tokenize(t)) s.add(stem(tok));
  return s;
}

/** The first alternative of each group found in `have`, or null when a group is missing. */
export function found(m: Matcher, have: Set<string>): string[] | null {
  const hits: string[] = [];
  for (const g of m.groups) {
    const hit = g.find((alt) => tokenize(alt).every((t) => have.has(stem(t))));
    if (!hit) return null;
    hits.push(hit);
  }
  return hits;
}

/** Whether the asker is one of the condition's senders (null: the condition names none). */
export function judgeSenders(i: Interpretation, f: Facts): { result: Tri; reason: string } | null {
  const asker = f.askerHandle.toLowerCase();
  const { handles, traits } = i.senders;
  const agents = i.senders.agents ?? [];
  const connections = i.senders.connections === true;
  if (!handles.length && !traits.length && !connections) return null;
  const bound = agents.find((a) => f.askerId !== undefined && a.id === f.askerId);
  if (bound) return { result: 'match', reason: `the asker is @${bound.handle}` };
  const unknown: string[] = [];
  if (handles.length && !agents.length)
    unknown.push(
      `${handles.map((h) => `@${h}`).join(', ')} was never bound to an agent (add the condition again)`,
    );
  if (connections) {
    if (f.connected === true) return { result: 'match', reason: `@${asker} is one of your connections` };
    if (f.connected == null)
      unknown.push(`whether @${asker} is one of your connections could not be checked`);
  }
  if (traits.length) {
    if (!f.profile)
      unknown.push(
        `the profile of @${asker} is unavailable, so ${traits.map((t) => t.label).join(', ')} cannot be checked`,
      );
    else {
      const p = f.profile;
      const have = stems([p.displayName, p.bio, ...p.skills, ...p.interests]);
      const hit = traits.map((t) => ({ t, words: found(t, have) })).find((x) => x.words);
      if (hit)
        return {
          result: 'match',
          reason: `the profile of @${asker} (written by @${asker}) mentions ${hit.words!.join(', ')}`,
        };
    }
  }
  if (unknown.length) return { result: 'unknown', reason: unknown.join('; ') };
  const names = [
    ...handles.map((h) => `@${h}`),
    ...(connections ? ['one of your connections'] : []),
    ...traits.map((t) => t.label),
  ];
  return { result: 'no-match', reason: `@${asker} is not ${names.join(' or ')}` };
}

const topicName = (m: Matcher) => m.label.split(' (')[0]!;
/** The words a topic matched, each once ("rust" for "rust programming", whose second group holds "rust" too). */
const wordsOf = (words: string[]) => [...new Set(words.map((w) => w.toLowerCase()))].join(' ');
const topicsPhrase = (ts: Matcher[]) =>
  `${ts.length === 1 ? 'the topic' : 'the topics'} ${ts.map(topicName).join(', ')}`;

/**
 * Topics. A deny looks everywhere — the question, the draft, the cited passages, the sources'
 * names and keywords — since holding back too much is the safe mistake. An allow needs every
 * request of the question to be about one of its topics (not a keyword anywhere in it), and
 * names the cited sources that are not about that topic: those hold the answer for the owner.
 */
function judgeTopics(i: Interpretation, f: Facts): Judgement | null {
  if (!i.topics.length) return null;
  if (i.effect === 'deny') {
    const have = stems([
      f.question,
      f.draft ?? '',
      ...f.sources,
      ...f.excerpts,
      ...(f.sourceTopics ?? []).flatMap((s) => [s.name, ...s.words, ...(s.subjects ?? [])]),
      ...(f.passageSubjects ?? []),
    ]);
    const hit = i.topics.map((t) => ({ t, words: found(t, have) })).find((x) => x.words);
    if (hit)
      return {
        result: 'match',
        reason: `the query is about ${wordsOf(hit.words!)}, within ${topicsPhrase([hit.t])}`,
      };
    // Worded without the topic's words: what would be released is judged by meaning.
    const byMeaning = i.topics.map((t) => denyByMeaning(t, f.meaning));
    const sure = byMeaning.find((m) => m.result === 'match') ?? byMeaning.find((m) => m.result === 'unknown');
    if (sure) return sure;
    return { result: 'no-match', reason: `the query is not about ${i.topics.map(topicName).join(' or ')}` };
  }
  const requests = requestsOf(f.question);
  const misses: string[] = [];
  const missed: number[] = [];
  const used = new Set<Matcher>();
  const hits: string[] = [];
  for (const [at, r] of requests.entries()) {
    const have = stems([r]);
    const hit = i.topics.map((t) => ({ t, words: found(t, have) })).find((x) => x.words);
    if (!hit) {
      misses.push(r);
      missed.push(at);
    } else {
      used.add(hit.t);
      hits.push(wordsOf(hit.words!));
    }
  }
  const topics = i.topics.map(topicName).join(' or ');
  if (requests.length && misses.length) {
    // Not in the topic's words: released only if what those requests ask and everything the
    // draft would release are about it.
    const meant = allowByMeaning(i.topics, f.meaning, missed);
    if (meant) {
      const outside = sourcesOutside([meant.topic], f);
      return { result: 'match', reason: meant.reason, ...(outside.length ? { outside } : {}) };
    }
  }
  if (!requests.length || misses.length)
    return {
      result: 'no-match',
      reason: `the question asks ${misses.map((m) => JSON.stringify(m)).join(' and ') || 'nothing'}, which is not about ${topics}`,
    };
  const outside = sourcesOutside([...used], f);
  return {
    result: 'match',
    reason: `the question asks about ${[...new Set(hits)].join(', ')}, within ${topicsPhrase([...used])}`,
    ...(outside.length ? { outside } : {}),
  };
}

/** Judge one interpreted condition against a query: match, no-match, or unknown. */
export function evaluate(i: Interpretation, f: Facts): Judgement {
  const parts: Judgement[] = [];
  const senders = judgeSenders(i, f);
  if (senders) parts.push(senders);
  const topics = judgeTopics(i, f);
  if (topics) parts.push(topics);
  for (const u of i.undecidable)
    parts.push({ result: 'unknown', reason: `"${u}" cannot be decided without a language model` });
  const miss = parts.find((p) => p.result === 'no-match');
  if (miss) return miss;
  const unknown = parts.filter((p) => p.result === 'unknown');
  if (unknown.length) return { result: 'unknown', reason: unknown.map((p) => p.reason).join('; ') };
  const outside = parts.flatMap((p) => p.outside ?? []);
  return {
    result: 'match',
    reason: parts.map((p) => p.reason).join('; ') || 'it covers every query',
    ...(outside.length ? { outside } : {}),
  };
}

/**
 * The cited sources none of `topics` covers. A broad subject (programming, science, medicine,
 * finance) covers a source when the source is about it by meaning, or when its name or its
 * owner's summary says so — never because a keyword of it is one of the subject's words ("API
 * code reviewer" on a contacts page). Without a model, and for any other topic, the source's
 * name, keywords and summary decide — or, with a model, the cited passages of it all being about
 * the topic by meaning.
 */
export function sourcesOutside(
  topics: Matcher[],
  f: Pick<Facts, 'sources' | 'sourceTopics' | 'meaning'>,
): string[] {
  return f.sources.filter((name) => {
    const facts = f.sourceTopics?.find((s) => s.name === name);
    if (!facts) return true;
    // The passages cited from it are about the topic by meaning.
    if (topics.some((t) => sourceAboutByMeaning(t, name, f.meaning) === true)) return false;
    const have = stems([facts.name.replace(/[._-]+/g, ' '), ...facts.words]);
    const owned = stems([facts.name.replace(/[._-]+/g, ' '), facts.summary ?? '']);
    return !topics.some((t) => {
      const subject = subjectOf(t);
      if (facts.subjects && subject) return facts.subjects.includes(subject) || found(t, owned) !== null;
      return found(t, have) !== null;
    });
  });
}

/** The broad subjects the knowledge service judges sources on by meaning, by their terms. */
const SUBJECTS = new Map(
  [...new Set(Object.values(TOPIC_CATEGORIES))]
    .filter((c) => ['programming', 'science', 'medicine', 'finance'].includes(c.label))
    .map((c) => [JSON.stringify(c.terms), c.label]),
);

/** The broad subject a topic stands for ("code", "coding" and "programming" all read as programming). */
const subjectOf = (t: Matcher) =>
  t.groups.length === 1 ? SUBJECTS.get(JSON.stringify(t.groups[0])) : undefined;
