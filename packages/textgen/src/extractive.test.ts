import type { GenerateRequest, Passage } from '@lore/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractiveAnswer, NO_KNOWLEDGE_ANSWER, sentencesOf, stem } from './extractive.js';

const passages: Passage[] = [
  {
    id: 'c1',
    source: 'ops-handbook.md',
    text:
      'The office opens at nine. Uploads are limited to 10 GB per agent. ' +
      'The upload quota resets on the first day of each month. Coffee is free.',
  },
  {
    id: 'c2',
    source: 'faq.md',
    text: 'Agents can raise their quota by asking an admin. Quotas never apply to read-only agents.',
  },
  {
    id: 'c3',
    source: 'changelog.md',
    text: '## 2024-05\n\n- Added dark mode.\n- Fixed a crash in search.\n\n```sh\nrm -rf /tmp/cache\n```',
  },
];

const ask = (question: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  task: 'answer',
  question,
  passages,
  ...extra,
});

describe('sentencesOf', () => {
  it('splits prose and list items, skipping headings, code and citation markers', () => {
    expect(sentencesOf(passages[2]!.text)).toEqual(['Added dark mode.', 'Fixed a crash in search.']);
    expect(sentencesOf('First point [1]. Second point, see 3.5 GB [2, 3]!\nWrapped\nline here.')).toEqual([
      'First point.',
      'Second point, see 3.5 GB!',
      'Wrapped line here.',
    ]);
    expect(sentencesOf('Yes')).toEqual(['Yes']);
  });

  it('stems singular and plural to the same key', () => {
    const pairs = [
      ['quota', 'quotas'],
      ['policy', 'policies'],
      ['cache', 'caches'],
      ['box', 'boxes'],
      ['match', 'matches'],
      ['use', 'uses'],
    ];
    for (const [a, b] of pairs) expect(stem(a!)).toBe(stem(b!));
    expect(stem('status')).toBe('status');
    expect(stem('class')).toBe('class');
  });
});

describe('extractiveAnswer', () => {
  it('picks the sentences that answer the question, with citations', () => {
    const r = extractiveAnswer(ask('What is the upload quota per agent?'));
    expect(r.strategy).toBe('extractive');
    expect(r.citations.length).toBeGreaterThan(0);
    expect(r.citations.length).toBeLessThanOrEqual(5);
    expect(r.text).toContain('Uploads are limited to 10 GB per agent.');
    expect(r.text).toContain('The upload quota resets');
    expect(r.text).not.toContain('Coffee');
    expect(r.text).not.toContain('office opens');
    // Every [n] marker maps to citations[n - 1], and each citation's excerpt is in the text.
    const markers = [...r.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers).toEqual(r.citations.map((_, i) => i + 1));
    for (const c of r.citations) {
      expect(r.text).toContain(c.excerpt);
      expect(passages.find((p) => p.id === c.id)!.source).toBe(c.source);
    }
  });

  it('keeps the original order within a source', () => {
    const r = extractiveAnswer(ask('quota uploads agent month', { maxSentences: 4 }));
    const i1 = r.text.indexOf('Uploads are limited');
    const i2 = r.text.indexOf('The upload quota resets');
    expect(i1).toBeGreaterThanOrEqual(0);
    expect(i2).toBeGreaterThan(i1);
  });

  it('is deterministic', () => {
    const a = extractiveAnswer(ask('How do agents raise their quota?', { detailed: true }));
    for (let i = 0; i < 5; i++)
      expect(extractiveAnswer(ask('How do agents raise their quota?', { detailed: true }))).toEqual(a);
    expect(a.citations[0]!.id).toBe('c2');
  });

  it('honours detailed and maxSentences', () => {
    const generic = 'agent quota uploads month admin search dark mode crash office coffee';
    // A question of many parts may take up to two sentences more, to cover them.
    expect(extractiveAnswer(ask(generic)).citations.length).toBeGreaterThanOrEqual(3);
    expect(extractiveAnswer(ask(generic)).citations.length).toBeLessThanOrEqual(5);
    expect(extractiveAnswer(ask(generic, { detailed: true })).citations.length).toBeGreaterThanOrEqual(6);
    expect(extractiveAnswer(ask(generic, { detailed: true })).citations.length).toBeLessThanOrEqual(8);
    expect(extractiveAnswer(ask(generic, { maxSentences: 1 })).citations).toHaveLength(1);
  });

  it('covers every part of the question, not only the best-scoring one', () => {
    const passages: Passage[] = [
      {
        id: 'q1',
        source: 'quantum.txt',
        text:
          'Quantum computing uses qubits. Quantum computing companies raised record funding this year. ' +
          'Quantum computing hardware keeps growing in qubit count. Quantum computing roadmaps promise more qubits.',
      },
      {
        id: 'q2',
        source: 'quantum.txt',
        text: 'A logical qubit below the error-correction threshold was demonstrated, a milestone for fault tolerance.',
      },
    ];
    const r = extractiveAnswer({
      task: 'answer',
      question: 'What are the latest developments in quantum computing and error correction?',
      passages,
    });
    expect(r.text).toContain('error-correction threshold');
    expect(r.citations.map((c) => c.id)).toContain('q2');
  });

  it('quotes code blocks, lists and tables whole, line breaks kept, with the sentence introducing them', () => {
    const r = extractiveAnswer({
      task: 'answer',
      question: 'How do I add the logger middleware and which options does it take?',
      passages: [
        {
          id: 'm1',
          source: 'middleware.md',
          text:
            '# Logger\n\nAdd the logger middleware to the app:\n\n```ts\nimport { logger } from "hono/logger";\n\napp.use(logger());\n```\n\n' +
            'The logger options are:\n- `fn`: where lines go\n- `colors`: false to disable colors\n',
        },
        { id: 'm2', source: 'other.md', text: 'Middleware runs in the order it is added.' },
      ],
    });
    expect(r.text).toContain(
      'Add the logger middleware to the app:\n```ts\nimport { logger } from "hono/logger";\n\napp.use(logger());\n```\n[',
    );
    expect(r.text).toContain(
      'The logger options are:\n- `fn`: where lines go\n- `colors`: false to disable colors [',
    );
    const markers = [...r.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers).toEqual(r.citations.map((_, i) => i + 1));
    expect(r.uncovered).toBeUndefined();
  });

  it('says plainly which part of the question the knowledge does not cover', () => {
    const r = extractiveAnswer({
      task: 'answer',
      question: 'What is the upload quota per agent and how are backups encrypted?',
      passages,
    });
    expect(r.text).toContain('Uploads are limited to 10 GB per agent.');
    expect(r.uncovered).toEqual(['“how are backups encrypted”']);
    expect(
      r.text.endsWith(
        'The knowledge base only partly answers this question: it says nothing about “how are backups encrypted”.',
      ),
    ).toBe(true);
    // A name the knowledge never mentions is a gap too.
    const named = extractiveAnswer({
      task: 'answer',
      question: 'Is the upload quota the same on Azure?',
      passages,
    });
    expect(named.uncovered).toEqual(['Azure']);
    // "on Azure" is where the question is set: not named, but not claimed missing either.
    expect(named.text).not.toContain('only partly answers');
    expect(named.text).toMatch(
      /The passages quoted do not name Azure, so this answer may not be specific to it\.$/,
    );
  });

  it('counts the question’s setting as spoken to when a passage or its source names it, in any case or form', () => {
    const arc = 'Arc<T> is a thread-safe reference-counting pointer. Cloning an Arc increments the count.';
    const bySource = extractiveAnswer({
      task: 'answer',
      question: 'What does Arc do in Rust?',
      passages: [{ id: 'a', source: 'rust-book.md', text: arc }],
    });
    expect(bySource.uncovered).toBeUndefined();
    expect(bySource.text).not.toContain('Rust');
    const byText = extractiveAnswer({
      task: 'answer',
      question: 'What does Arc do in RUST?',
      passages: [{ id: 'a', source: 'notes', text: `In Rust's standard library, ${arc}` }],
    });
    expect(byText.uncovered).toBeUndefined();
    const unnamed = extractiveAnswer({
      task: 'answer',
      question: 'What does Arc do in Rust?',
      passages: [{ id: 'a', source: 'notes', text: arc }],
    });
    expect(unnamed.text).not.toContain('says nothing about');
    expect(unnamed.text).toContain('The passages quoted do not name Rust');
    // A name the question asks about (not its setting) is still a gap.
    const compared = extractiveAnswer({
      task: 'answer',
      question: 'How does Arc compare with Mutex?',
      passages: [{ id: 'a', source: 'notes', text: arc }],
    });
    expect(compared.text).toMatch(/it says nothing about Mutex\.$/);
  });

  it('weights rare terms above common ones', () => {
    const ps: Passage[] = [
      { id: 'a', source: 'a', text: 'The agent stores notes.' },
      { id: 'b', source: 'b', text: 'The agent sends a heartbeat every minute.' },
      { id: 'c', source: 'c', text: 'The agent logs errors.' },
    ];
    const r = extractiveAnswer({
      task: 'answer',
      question: 'agent heartbeat',
      passages: ps,
      maxSentences: 1,
    });
    expect(r.citations[0]!.id).toBe('b');
  });

  it('falls back to lead sentences when nothing overlaps', () => {
    const r = extractiveAnswer(ask('zebra', { maxSentences: 2 }));
    expect(r.citations.map((c) => c.excerpt)).toEqual([
      'The office opens at nine.',
      'Agents can raise their quota by asking an admin.',
    ]);
  });

  it('says so when there is no knowledge', () => {
    for (const ps of [[], [{ id: 'x', source: 's', text: '  \n ' }]]) {
      const r = extractiveAnswer({ task: 'answer', question: 'anything?', passages: ps });
      expect(r).toEqual({ text: NO_KNOWLEDGE_ANSWER, citations: [], strategy: 'extractive' });
    }
    const s = extractiveAnswer({ task: 'summarize', question: 'anything?', passages: [] });
    expect(s.text).toMatch(/no relevant knowledge/i);
    expect(s.citations).toEqual([]);
  });

  it('keeps a bullet for every peer, even one that said only what another peer said', () => {
    const r = extractiveAnswer({
      task: 'summarize',
      question: 'What is the quota?',
      passages: [
        { id: 'p1', source: 'carol', text: 'The quota is 10 GB.' },
        { id: 'p2', source: 'bob', text: 'The quota is 10 GB.' },
      ],
    });
    expect(r.citations.map((c) => c.source)).toEqual(['carol', 'bob']);
    expect(r.text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(2);
    // An answer quotes the sentence once.
    const a = extractiveAnswer({
      task: 'answer',
      question: 'What is the quota?',
      passages: [
        { id: 'p1', source: 'carol', text: 'The quota is 10 GB.' },
        { id: 'p2', source: 'bob', text: 'The quota is 10 GB.' },
      ],
    });
    expect(a.citations).toHaveLength(1);
  });

  it('summarizes peers with attribution, covering every peer', () => {
    const answers: Passage[] = [
      {
        id: 'a1',
        source: 'bob',
        text: 'The deploy window is Tuesday at 14:00 UTC [1]. Staging must be green first [2]. I like turtles.',
      },
      {
        id: 'a2',
        source: '@carol',
        text: 'Deploys happen on Tuesdays. Ask @dave for the release checklist.',
      },
      { id: 'a3', source: 'erin', text: 'No idea.' },
      { id: 'a4', source: 'bob', text: 'Hotfixes can deploy any day with approval.' },
    ];
    const r = extractiveAnswer({
      task: 'summarize',
      question: 'When is the deploy window?',
      passages: answers,
      maxSentences: 2,
    });
    const lines = r.text.split('\n');
    expect(lines.every((l) => /^- @\w+: .+ \[\d+\]$/.test(l))).toBe(true);
    for (const peer of ['@bob', '@carol', '@erin']) expect(r.text).toContain(`- ${peer}: `);
    expect(r.text).not.toContain('@@carol');
    expect(r.text).toContain('- @bob: The deploy window is Tuesday at 14:00 UTC. [1]');
    // Peers appear in the order they answered; old [n] markers from the answers are gone.
    expect(r.text.indexOf('@bob')).toBeLessThan(r.text.indexOf('@carol'));
    expect(r.text.indexOf('@carol')).toBeLessThan(r.text.indexOf('@erin'));
    expect(r.citations.map((c) => c.source)).toEqual(['bob', '@carol', 'erin']);
    expect(r.citations.map((c) => c.id)).toEqual(['a1', 'a2', 'a3']);
  });

  it('always produces consistent markers and citations (property)', () => {
    const word = fc.constantFrom(
      'quota',
      'agent',
      'deploy',
      'search',
      'index',
      'the',
      'is',
      'fast',
      'Zed',
      '42',
    );
    const sentence = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => `${w.join(' ')}.`);
    const passage = fc.record({
      id: fc.uuid(),
      source: fc.constantFrom('a', 'b', 'c'),
      text: fc.array(sentence, { maxLength: 5 }).map((s) => s.join(' ')),
    });
    fc.assert(
      fc.property(
        fc.array(passage, { maxLength: 6 }),
        fc.array(word, { maxLength: 5 }),
        fc.constantFrom<'answer' | 'summarize'>('answer', 'summarize'),
        (ps, q, task) => {
          const req: GenerateRequest = { task, question: q.join(' '), passages: ps };
          const r = extractiveAnswer(req);
          expect(extractiveAnswer(req)).toEqual(r);
          const markers = [...r.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
          expect(markers).toEqual(r.citations.map((_, i) => i + 1));
          if (task === 'summarize') {
            const sources = new Set(ps.filter((p) => p.text.trim() !== '').map((p) => p.source));
            expect(new Set(r.citations.map((c) => c.source))).toEqual(sources);
          } else {
            // Three, and up to two more to cover parts of the question the best three miss.
            expect(r.citations.length).toBeLessThanOrEqual(5);
          }
        },
      ),
    );
  });
});
