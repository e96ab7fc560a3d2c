import type { TopicMeaning } from '@lore/schema/knowledge-events';
import type { Matcher, Tri } from './interpret.js';

/**
 * Cosine thresholds between a condition's topic ("About coffee machine.") and what a draft
 * would release (the draft, and the vectors stored for its cited passages) or what the question
 * asks, all-MiniLM-L6-v2. Measured on test/fixtures/topic-meaning-eval.ts through the knowledge
 * service (test/topic-meaning-eval.test.ts prints every score): passages about a topic scored
 * 0.12–0.41 (17 of 22 at least 0.20; the five below are health facts, which the classification
 * at ingest holds anyway, and one on politics), passages about something else −0.10–0.27: at
 * most 0.16 from another domain (a cloud bill against salaries), 0.25 and 0.27 for a dishwasher
 * and a printer against a coffee machine, and one outlier at 0.42 ("the health check endpoint"
 * against health). Questions about a topic scored 0.14–0.41, questions about something else
 * −0.08–0.20 (the dishwasher and the printer again).
 *
 * - `denyMatch`: a deny rejects on meaning alone (no passage about something else reaches it
 *   but the outlier, which a deny may hold: holding too much is the safe mistake);
 * - `denyDoubt`: between it and `denyMatch` a deny cannot be ruled out, so the query waits for
 *   its owner rather than leave on an allow. 0.20 sits above every passage from another domain
 *   (at 0.15, passages of ordinary notes about nothing of the kind were held);
 * - `sourceDoubt`: a cited source as a whole (the mean of its first passages) holds from here:
 *   pages made of one topic's passages scored 0.32–0.58, pages of other passages 0.06–0.28 (a
 *   mean of unrelated passages drifts towards any topic: 0.22 against salaries at 0.20);
 * - `allow`: an allow covers by meaning only what is clearly about its topic, draft and every
 *   passage (no passage about something else reaches it but the outlier);
 * - `request`: and only a question whose every request its words do not cover scores at least
 *   this (8 of 14 questions about a topic; none about something else above 0.20). A miss leaves
 *   the query for the owner.
 * A deny errs towards holding: `denyDoubt` < `allow`.
 */
export const TOPIC_THRESHOLDS = {
  denyMatch: 0.35,
  denyDoubt: 0.2,
  sourceDoubt: 0.3,
  allow: 0.3,
  request: 0.25,
} as const;

/** The phrase a topic matcher stands for, as a condition named it ("coffee machine", "health"). */
export const topicPhrase = (m: Matcher): string => m.label.split(' (')[0]!.replace(/^"|"$/g, '');

/** What a deny's topic is by meaning: match (reject), unknown (hold for the owner) or no-match. */
export function denyByMeaning(
  topic: Matcher,
  meaning: TopicMeaning | undefined,
): { result: Tri; reason: string } {
  const phrase = topicPhrase(topic);
  if (meaning?.status === 'unavailable')
    return {
      result: 'unknown',
      reason: `the embedding model is unavailable, so whether the answer is about ${phrase} cannot be checked`,
    };
  const s = meaning?.scores.find((x) => x.topic === phrase);
  // No model here (or none asked): the topic's words decide, as they did before.
  if (!meaning || meaning.status === 'off' || !s)
    return { result: 'no-match', reason: `not about ${phrase}` };
  // A passage is read with its source: one that names its subject only through its neighbours
  // ("put a descaling tablet in the water tank" on a page about the coffee machine) is caught
  // by the source's mean. Only the cited sources count, never the question.
  const best = [
    { what: 'the draft', score: s.draft },
    ...s.passages.map((p) => ({ what: `a passage of ${p.source}`, score: p.score })),
    ...s.sources.map((x) => ({ what: `${x.source} as a whole`, score: x.score, whole: true })),
  ].reduce((a, b) => (b.score > a.score ? b : a));
  if (best.score >= TOPIC_THRESHOLDS.denyMatch)
    return {
      result: 'match',
      reason: `${best.what} is about ${phrase} by meaning (${best.score.toFixed(2)})`,
    };
  const doubt = 'whole' in best ? TOPIC_THRESHOLDS.sourceDoubt : TOPIC_THRESHOLDS.denyDoubt;
  if (best.score >= doubt)
    return {
      result: 'unknown',
      reason: `${best.what} might be about ${phrase} by meaning (${best.score.toFixed(2)})`,
    };
  return { result: 'no-match', reason: `nothing released is about ${phrase}` };
}

/**
 * Whether a question and everything its draft would release are about one of an allow's topics
 * by meaning: each request the topic's words did not cover (`asked`: their places among the
 * question's requests) at least `request`, the draft and every cited passage at least `allow`.
 * A draft on the topic answering a question about something else ("for my TypeScript code: what
 * is in the shell history?" drafted from TypeScript notes) is not covered. Null when meaning
 * cannot say (no model, no passage cited, requests not scored).
 */
export function allowByMeaning(
  topics: Matcher[],
  meaning: TopicMeaning | undefined,
  asked: number[],
): { topic: Matcher; reason: string } | null {
  if (meaning?.status !== 'scored') return null;
  for (const t of topics) {
    const s = meaning.scores.find((x) => x.topic === topicPhrase(t));
    if (!s?.passages.length) continue;
    const requests = asked.map((i) => s.requests[i]);
    if (requests.some((r) => r === undefined || r < TOPIC_THRESHOLDS.request)) continue;
    const lowest = Math.min(s.draft, ...s.passages.map((p) => p.score));
    if (lowest >= TOPIC_THRESHOLDS.allow)
      return {
        topic: t,
        reason: `the question, the draft and every passage it cites are about ${topicPhrase(t)} by meaning (at least ${Math.min(lowest, ...(requests as number[])).toFixed(2)})`,
      };
  }
  return null;
}

/** Whether the passages cited from `source` are all about `topic` by meaning (null: cannot say). */
export function sourceAboutByMeaning(
  topic: Matcher,
  source: string,
  meaning: TopicMeaning | undefined,
): boolean | null {
  if (meaning?.status !== 'scored') return null;
  const cited = meaning.scores
    .find((x) => x.topic === topicPhrase(topic))
    ?.passages.filter((p) => p.source === source);
  if (!cited?.length) return null;
  return cited.every((p) => p.score >= TOPIC_THRESHOLDS.allow);
}
