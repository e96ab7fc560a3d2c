import { expect, describe as group, it } from 'vitest';
import { describe, interpret } from './interpret.js';

group('interpret', () => {
  it('reads the three seed conditions', () => {
    const science = interpret('Allow questions about scientific topics from academic users');
    expect(science.effect).toBe('allow');
    expect(science.topics.map((t) => t.label)).toEqual([expect.stringMatching(/^scientific \(science/)]);
    expect(science.senders.traits.map((t) => t.label)).toEqual([
      expect.stringMatching(/^academic \(academic/),
    ]);
    expect(science.undecidable).toEqual([]);

    const programming = interpret('Accept queries related to programming from any user');
    expect(programming.effect).toBe('allow');
    expect(programming.topics.map((t) => t.label)).toEqual([expect.stringMatching(/^programming \(/)]);
    expect(programming.senders).toEqual({ handles: [], traits: [] });
    expect(programming.undecidable).toEqual([]);

    const researcher = interpret('Approve all questions from verified_researcher');
    expect(researcher).toMatchObject({
      effect: 'allow',
      senders: { handles: ['verified_researcher'], traits: [] },
      topics: [],
      undecidable: [],
    });
  });

  it('makes deny rules of reject, deny and block (and never / do not)', () => {
    for (const s of [
      'Reject questions from mallory',
      'Deny all queries from mallory',
      'Block questions from mallory',
      'Never answer questions from mallory',
      "Don't share anything with mallory",
    ])
      expect(interpret(s).effect, s).toBe('deny');
    expect(interpret('Accept questions from alice').effect).toBe('allow');
  });

  it('tells handles from traits and lists', () => {
    expect(interpret('Allow questions from alice, bob or @carol_1').senders.handles).toEqual([
      'alice',
      'bob',
      'carol_1',
    ]);
    const t = interpret('Allow questions from researchers');
    expect(t.senders.handles).toEqual([]);
    expect(t.senders.traits[0]!.label).toMatch(/^researcher/);
    // A registered one-word handle stays a handle even when it ends in s.
    expect(interpret('Allow questions from james', (h) => h === 'james').senders.handles).toEqual(['james']);
    expect(interpret('Allow questions from users who are academics').senders.traits[0]!.label).toMatch(
      /^academic/,
    );
  });

  it('reads topics before the object and multi-word topics', () => {
    expect(interpret('Accept programming questions').topics[0]!.label).toMatch(/^programming/);
    expect(interpret('Allow questions about quantum computing').topics).toEqual([
      { label: '"quantum computing"', groups: [['quantum'], ['computing']] },
    ]);
    expect(interpret('Allow questions about physics or chemistry').topics).toHaveLength(2);
    expect(interpret('Allow questions about advances in quantum computing').undecidable).toEqual([]);
  });

  it('keeps what it cannot decide', () => {
    expect(interpret('Allow questions when I am online').undecidable).toEqual(['when i am online']);
    expect(interpret('Be nice').undecidable).toEqual(['nice']);
    expect(interpret('Accept questions from people I trust')).toMatchObject({
      senders: { handles: [], traits: [] },
      undecidable: ['from people i trust'],
    });
    const d = describe(interpret('Allow questions from alice if they seem urgent'));
    expect(d).toMatchObject({ senders: '@alice', topics: 'any topic', undecidable: ['if they seem urgent'] });
  });
});
