import { tokenize } from '@lore/search';
import { type Interpretation, type Matcher, stem, type Tri } from './interpret.js';
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
  /** What each cited source is about: its name, keywords and the owner's summary (absent: unknown). */
  sourceTopics?: Array<{ name: string; words: string[] }>;
  /** Whether the asker is one of the owner's connections (null: could not be checked). */
  connected?: boolean | null;
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
      ...(f.sourceTopics ?? []).flatMap((s) => [s.name, ...s.words]),
    ]);
    const hit = i.topics.map((t) => ({ t, words: found(t, have) })).find((x) => x.words);
    return hit
      ? { result: 'match', reason: `the query is about ${hit.words!.join(' ')} (${topicName(hit.t)})` }
      : { result: 'no-match', reason: `the query is not about ${i.topics.map(topicName).join(' or ')}` };
  }
  const requests = requestsOf(f.question);
  const misses: string[] = [];
  const used = new Set<Matcher>();
  const hits: string[] = [];
  for (const r of requests) {
    const have = stems([r]);
    const hit = i.topics.map((t) => ({ t, words: found(t, have) })).find((x) => x.words);
    if (!hit) misses.push(r);
    else {
      used.add(hit.t);
      hits.push(hit.words!.join(' '));
    }
  }
  const topics = i.topics.map(topicName).join(' or ');
  if (!requests.length || misses.length)
    return {
      result: 'no-match',
      reason: `the question asks ${misses.map((m) => JSON.stringify(m)).join(' and ') || 'nothing'}, which is not about ${topics}`,
    };
  const outside = sourcesOutside([...used], f);
  return {
    result: 'match',
    reason: `the question asks about ${[...new Set(hits)].join(', ')} (${[...used].map(topicName).join(', ')})`,
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

/** The cited sources none of `topics` covers (by the source's name, keywords and summary). */
export function sourcesOutside(topics: Matcher[], f: Pick<Facts, 'sources' | 'sourceTopics'>): string[] {
  return f.sources.filter((name) => {
    const facts = f.sourceTopics?.find((s) => s.name === name);
    if (!facts) return true;
    const have = stems([facts.name.replace(/[._-]+/g, ' '), ...facts.words]);
    return !topics.some((t) => found(t, have));
  });
}
