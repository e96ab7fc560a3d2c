import { expect, describe as group, it } from 'vitest';
import { describe, evaluate, type Facts, interpret } from './interpret.js';

const professor = {
  displayName: 'Alice Smith',
  bio: 'Professor of physics at a university.',
  skills: ['quantum optics'],
  interests: ['qubits'],
};
const hobbyist = {
  displayName: 'Mallory',
  bio: 'I like cars and cooking.',
  skills: ['welding'],
  interests: ['racing'],
};

const facts = (over: Partial<Facts> = {}): Facts => ({
  askerHandle: 'alice',
  profile: professor,
  question: 'What are the latest developments in quantum computing?',
  sources: ['quantum_computing.txt'],
  excerpts: ['Error-corrected logical qubits were demonstrated in 2024.'],
  ...over,
});

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

group('evaluate', () => {
  it('matches topics against the question, sources and excerpts, and traits against the profile', () => {
    const science = interpret('Allow questions about scientific topics from academic users');
    const r = evaluate(science, facts());
    expect(r.result).toBe('match');
    expect(r.reason).toMatch(/profile of @alice mentions (professor|university)/);
    expect(r.reason).toMatch(/about quantum/);
    expect(evaluate(science, facts({ askerHandle: 'mallory', profile: hobbyist })).result).toBe('no-match');
    expect(evaluate(science, facts({ profile: null })).result).toBe('unknown');
    expect(
      evaluate(science, facts({ question: 'Where is the best pizza?', sources: [], excerpts: [] })).result,
    ).toBe('no-match');
    // The draft's sources count: a vague question answered from a quantum document is about quantum.
    expect(
      evaluate(
        interpret('Allow questions about quantum computing'),
        facts({ question: 'Anything new?', excerpts: [] }),
      ).result,
    ).toBe('match');
  });

  it('matches senders by handle and the programming category', () => {
    const prog = interpret('Accept queries related to programming from any user');
    expect(evaluate(prog, facts({ question: 'How do I reverse a list in Python?' })).result).toBe('match');
    expect(evaluate(prog, facts({ sources: [], excerpts: [] })).result).toBe('no-match');
    const vr = interpret('Approve all questions from verified_researcher');
    expect(evaluate(vr, facts({ askerHandle: 'verified_researcher' })).result).toBe('match');
    expect(evaluate(vr, facts()).result).toBe('no-match');
  });

  it('is unknown, not a guess, for undecidable parts unless another part fails', () => {
    const c = interpret('Allow questions from alice when I am online');
    expect(evaluate(c, facts()).result).toBe('unknown');
    expect(evaluate(c, facts({ askerHandle: 'bob' })).result).toBe('no-match');
  });
});
