import type { TopicMeaning } from '@lore/schema/knowledge-events';
import { describe, expect, it } from 'vitest';
import { interpret } from './interpret.js';
import { evaluate, type Facts } from './judge.js';
import { allowByMeaning, denyByMeaning, TOPIC_THRESHOLDS, topicPhrase } from './meaning.js';

const coffeeDeny = interpret('Never share anything about our coffee machine');
const coffeeAllow = interpret('Accept queries about our coffee machine');
const topic = coffeeDeny.topics[0]!;

const scored = (
  draft: number,
  passages: Array<[string, number]>,
  t = 'coffee machine',
  requests = [0.4],
): TopicMeaning => ({
  status: 'scored',
  scores: [
    {
      topic: t,
      draft,
      passages: passages.map(([source, score]) => ({ source, score })),
      requests,
      sources: [],
    },
  ],
});

const facts = (meaning: TopicMeaning | undefined, over: Partial<Facts> = {}): Facts => ({
  askerId: 'id-dan',
  askerHandle: 'dan',
  profile: null,
  question: 'How do I descale the espresso maker?',
  sources: ['kitchen.md'],
  excerpts: ['Descale the espresso maker every month.'],
  draft: 'Descale the espresso maker every month.',
  sourceTopics: [{ name: 'kitchen.md', words: ['espresso', 'descale'] }],
  ...(meaning ? { meaning } : {}),
  ...over,
});

describe('topics by meaning', () => {
  it('reads the phrase a condition names', () => {
    expect(topicPhrase(topic)).toBe('coffee machine');
    expect(topicPhrase(interpret('Never share anything about health').topics[0]!)).toBe('health');
  });

  it('keeps a deny lower than an allow: a deny errs towards holding', () => {
    expect(TOPIC_THRESHOLDS.denyDoubt).toBeLessThan(TOPIC_THRESHOLDS.allow);
    expect(TOPIC_THRESHOLDS.denyDoubt).toBeLessThan(TOPIC_THRESHOLDS.denyMatch);
  });

  it('rejects on any released passage about a deny’s topic, whatever the question says', () => {
    const m = scored(0.1, [
      ['notes.md', 0.05],
      ['kitchen.md', 0.41],
    ]);
    expect(denyByMeaning(topic, m)).toMatchObject({ result: 'match' });
    expect(denyByMeaning(topic, m).reason).toMatch(/a passage of kitchen\.md is about coffee machine/);
    const r = evaluate(coffeeDeny, facts(m, { question: 'What do you have on file?' }));
    expect(r.result).toBe('match');
  });

  it('rejects on the draft alone, and holds in the doubtful band', () => {
    expect(denyByMeaning(topic, scored(0.5, [['a.md', 0]])).result).toBe('match');
    expect(denyByMeaning(topic, scored(0.2, [['a.md', 0.1]])).result).toBe('unknown');
    expect(denyByMeaning(topic, scored(0.1, [['a.md', 0.1]])).result).toBe('no-match');
  });

  it('reads a passage with its source: a page about the topic holds a passage that does not name it', () => {
    const m = scored(0.12, [['kitchen.md', 0.14]]);
    expect(denyByMeaning(topic, m).result).toBe('no-match');
    m.scores[0]!.sources = [{ source: 'kitchen.md', score: 0.31 }];
    expect(denyByMeaning(topic, m)).toMatchObject({
      result: 'unknown',
      reason: 'kitchen.md as a whole might be about coffee machine by meaning (0.31)',
    });
    // A whole page drifts towards any topic: it holds from a higher floor than a passage.
    m.scores[0]!.sources = [{ source: 'kitchen.md', score: 0.25 }];
    expect(denyByMeaning(topic, m).result).toBe('no-match');
    m.scores[0]!.sources = [{ source: 'kitchen.md', score: 0.4 }];
    expect(denyByMeaning(topic, m).result).toBe('match');
  });

  it('holds on doubt when the model is unavailable, and reads words alone when there is none', () => {
    expect(denyByMeaning(topic, { status: 'unavailable', scores: [] }).result).toBe('unknown');
    expect(denyByMeaning(topic, undefined).result).toBe('no-match');
    expect(denyByMeaning(topic, { status: 'off', scores: [] }).result).toBe('no-match');
    expect(evaluate(coffeeDeny, facts({ status: 'unavailable', scores: [] })).result).toBe('unknown');
    expect(evaluate(coffeeDeny, facts({ status: 'off', scores: [] })).result).toBe('no-match');
    // The topic's words still reject without any model.
    const worded = facts({ status: 'off', scores: [] }, { question: 'How do I clean the coffee machine?' });
    expect(evaluate(coffeeDeny, worded).result).toBe('match');
  });

  it('allows by meaning only when the draft and every passage are about the topic', () => {
    const all = scored(0.38, [
      ['kitchen.md', 0.4],
      ['kitchen.md', 0.33],
    ]);
    expect(allowByMeaning(coffeeAllow.topics, all, [0])?.reason).toMatch(/about coffee machine by meaning/);
    const r = evaluate(coffeeAllow, facts(all));
    expect(r).toMatchObject({ result: 'match' });
    expect(r.outside).toBeUndefined();
    // One passage about something else, or a draft that strays: not by meaning.
    const mixed = scored(0.38, [
      ['kitchen.md', 0.4],
      ['wifi.md', 0.05],
    ]);
    expect(allowByMeaning(coffeeAllow.topics, mixed, [0])).toBeNull();
    expect(evaluate(coffeeAllow, facts(mixed, { sources: ['kitchen.md', 'wifi.md'] })).result).toBe(
      'no-match',
    );
    expect(allowByMeaning(coffeeAllow.topics, scored(0.1, [['kitchen.md', 0.4]]), [0])).toBeNull();
    // Without passages or a model, meaning says nothing.
    expect(allowByMeaning(coffeeAllow.topics, scored(0.9, []), [0])).toBeNull();
    expect(allowByMeaning(coffeeAllow.topics, { status: 'off', scores: [] }, [0])).toBeNull();
    expect(evaluate(coffeeAllow, facts(undefined)).result).toBe('no-match');
  });

  it('does not cover by meaning a question that asks about something else, whatever was drafted', () => {
    // Notes on the topic drafted for a question about something else ("what is in the shell history?").
    const offTopic = scored(0.45, [['kitchen.md', 0.42]], 'coffee machine', [0.08]);
    expect(allowByMeaning(coffeeAllow.topics, offTopic, [0])).toBeNull();
    const q = 'For my espresso code: what is in the shell history?';
    expect(evaluate(coffeeAllow, facts(offTopic, { question: q })).result).toBe('no-match');
    // Requests the topic's words cover need no score; requests not scored (an older node) never cover.
    expect(allowByMeaning(coffeeAllow.topics, offTopic, [])).not.toBeNull();
    expect(
      allowByMeaning(coffeeAllow.topics, scored(0.45, [['kitchen.md', 0.42]], 'coffee machine', []), [0]),
    ).toBeNull();
  });
});
