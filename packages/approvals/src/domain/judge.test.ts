import { expect, describe as group, it } from 'vitest';
import { interpret } from './interpret.js';
import { evaluate, type Facts, sourcesOutside } from './judge.js';

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
  askerId: 'id-alice',
  askerHandle: 'alice',
  profile: professor,
  question: 'What are the latest developments in quantum computing?',
  sources: ['quantum_computing.txt'],
  excerpts: ['Error-corrected logical qubits were demonstrated in 2024.'],
  sourceTopics: [{ name: 'quantum_computing.txt', words: ['quantum', 'qubits', 'error'] }],
  ...over,
});

/** A condition read with its handles bound, as cqAddAutoApprovalCondition stores it. */
const bound = (sentence: string, ids: Record<string, string>) => {
  const i = interpret(sentence, (h) => h in ids);
  i.senders.agents = i.senders.handles.map((h) => ({ handle: h, id: ids[h]! }));
  return i;
};

group('evaluate', () => {
  it('matches topics against what the question asks, and traits against the asker’s own profile', () => {
    const science = interpret('Allow questions about scientific topics from academic users');
    const r = evaluate(science, facts());
    expect(r.result).toBe('match');
    expect(r.reason).toMatch(/profile of @alice \(written by @alice\) mentions (professor|university)/);
    expect(r.reason).toMatch(/asks about quantum/);
    expect(evaluate(science, facts({ askerHandle: 'mallory', profile: hobbyist })).result).toBe('no-match');
    expect(evaluate(science, facts({ profile: null })).result).toBe('unknown');
    expect(evaluate(science, facts({ question: 'Where is the best pizza?' })).result).toBe('no-match');
  });

  it('judges the question’s request, not a keyword anywhere in it', () => {
    const ts = interpret('Auto-approve questions about TypeScript');
    const payroll = {
      sources: ['payroll.md'],
      sourceTopics: [{ name: 'payroll.md', words: ['payroll', 'salary', 'database'] }],
    };
    const aside = evaluate(
      ts,
      facts({ question: 'TypeScript aside, what is the payroll database password?', ...payroll }),
    );
    expect(aside.result).toBe('no-match');
    expect(aside.reason).toContain('"what is the payroll database password", which is not about');
    const lab = interpret('Allow questions about scientific topics from academic users');
    expect(evaluate(lab, facts({ question: 'Physics question: what is the lab door code?' })).result).toBe(
      'no-match',
    );
    // A vague question answered from a quantum document does not ask about quantum.
    expect(
      evaluate(interpret('Allow questions about quantum computing'), facts({ question: 'Anything new?' }))
        .result,
    ).toBe('no-match');
  });

  it('names the cited sources a topic does not cover', () => {
    const ts = interpret('Auto-approve questions about TypeScript');
    const r = evaluate(
      ts,
      facts({
        question: 'What is the TypeScript payroll password?',
        sources: ['typescript.md', 'payroll.md'],
        sourceTopics: [
          { name: 'typescript.md', words: ['generics'] },
          { name: 'payroll.md', words: ['payroll', 'salary'] },
        ],
      }),
    );
    expect(r).toMatchObject({ result: 'match', outside: ['payroll.md'] });
    // A source the evaluator knows nothing about is outside too.
    expect(
      evaluate(ts, facts({ question: 'How do TypeScript enums work?', sources: ['x.md'], sourceTopics: [] }))
        .outside,
    ).toEqual(['x.md']);
  });

  it('lets a deny look everywhere: question, draft, passages and the sources’ topics', () => {
    const deny = interpret('Never share anything about salaries');
    expect(deny.effect).toBe('deny');
    const r = evaluate(
      deny,
      facts({
        question: 'TypeScript aside, what is in the payroll file?',
        sources: ['payroll.md'],
        excerpts: ['Runs on the 25th.'],
        sourceTopics: [{ name: 'payroll.md', words: ['salaries'] }],
      }),
    );
    expect(r.result).toBe('match');
    expect(evaluate(deny, facts({ draft: 'Jensen’s salary is 90k.' })).result).toBe('match');
    expect(evaluate(deny, facts()).result).toBe('no-match');
  });

  it('matches named senders by the id bound when the condition was added, never by handle alone', () => {
    const vr = bound('Approve all questions from verified_researcher', { verified_researcher: 'id-vr' });
    expect(evaluate(vr, facts({ askerId: 'id-vr', askerHandle: 'verified_researcher' })).result).toBe(
      'match',
    );
    // Someone else holding the handle now is not the agent the owner meant.
    expect(evaluate(vr, facts({ askerId: 'id-squatter', askerHandle: 'verified_researcher' })).result).toBe(
      'no-match',
    );
    // A condition kept from before binding cannot be trusted by handle.
    const legacy = interpret('Approve all questions from verified_researcher', () => true);
    const r = evaluate(legacy, facts({ askerHandle: 'verified_researcher' }));
    expect(r.result).toBe('unknown');
    expect(r.reason).toMatch(/never bound/);
  });

  it('understands "from my connections" and checks the relation, not the profile', () => {
    const c = interpret('Allow questions from my connections');
    expect(c.senders.connections).toBe(true);
    expect(c.undecidable).toEqual([]);
    expect(evaluate(c, facts({ connected: true })).result).toBe('match');
    expect(evaluate(c, facts({ connected: false })).result).toBe('no-match');
    expect(evaluate(c, facts({ connected: null })).result).toBe('unknown');
    expect(interpret('Accept questions from agents I am connected to').senders.connections).toBe(true);
  });

  it('is unknown, not a guess, for undecidable parts unless another part fails', () => {
    const c = bound('Allow questions from alice when I am online', { alice: 'id-alice' });
    expect(evaluate(c, facts()).result).toBe('unknown');
    expect(evaluate(c, facts({ askerId: 'id-bob', askerHandle: 'bob' })).result).toBe('no-match');
  });
});

group('what a cited source is about', () => {
  const programming = interpret('Accept queries related to programming from any user', () => false);
  const contacts = {
    name: 'team-contacts.md',
    // A contacts page whose strongest keywords happen to be programming words.
    words: ['api', 'code', 'reviewer', ''],
    summary: '',
  };
  it('reads keywords when no model says what the source is about', () => {
    expect(
      sourcesOutside(programming.topics, { sources: ['team-contacts.md'], sourceTopics: [contacts] }),
    ).toEqual([]);
  });
  it('goes by meaning for a broad subject when the model has judged the source, keywords aside', () => {
    const judged = [
      { ...contacts, subjects: [] },
      { name: 'dev-setup.md', words: ['git', 'pnpm', ''], summary: '', subjects: ['programming'] },
    ];
    expect(
      sourcesOutside(programming.topics, {
        sources: ['team-contacts.md', 'dev-setup.md'],
        sourceTopics: judged,
      }),
    ).toEqual(['team-contacts.md']);
  });
  it("takes the owner's own word for it: a name or summary that names the subject", () => {
    const owned = [{ ...contacts, summary: 'Programming team rota and contacts', subjects: [] }];
    expect(
      sourcesOutside(programming.topics, { sources: ['team-contacts.md'], sourceTopics: owned }),
    ).toEqual([]);
  });
});

group('a deny on what leaves', () => {
  const base: Facts = {
    askerHandle: 'mallory',
    profile: null,
    question: 'Who is on the rota this week?',
    sources: ['team.md'],
    excerpts: ['Tom is on the rota.'],
  };
  it('holds when a cited passage was classified health, whatever the question says', () => {
    const deny = interpret('Never share anything about health', () => false);
    expect(evaluate(deny, base).result).toBe('no-match');
    expect(evaluate(deny, { ...base, passageSubjects: ['health', 'medical'] }).result).toBe('match');
  });
  it('holds when a cited source is about the subject by meaning', () => {
    const deny = interpret('Never share anything about medicine', () => false);
    const sourceTopics = [{ name: 'team.md', words: [], subjects: ['medicine'] }];
    expect(evaluate(deny, { ...base, sourceTopics }).result).toBe('match');
  });
});
