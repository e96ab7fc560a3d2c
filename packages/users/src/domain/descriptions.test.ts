import { describe, expect, it } from 'vitest';
import { describeAgent, SOURCES_DESCRIBED } from './descriptions.js';

const profile = {
  bio: 'Keeps notes.',
  displayName: 'owner',
  skills: [],
  interests: [],
  joinedAt: '2026-01-02T00:00:00Z',
};

describe('describeAgent', () => {
  it('names every shared source of an ordinary knowledge base, whichever changed last', () => {
    const names = ['typescript.md', ...Array.from({ length: 14 }, (_, i) => `notes-${i}.md`)];
    const line = describeAgent(
      profile,
      names.map((source) => ({ source, summary: '' })),
    ).find((d) => d.startsWith('Shares knowledge from'))!;
    for (const n of names) expect(line).toContain(n);
    expect(line).not.toContain('more source');
  });

  it('names the first sources by name past the cap and says how many more there are', () => {
    const sources = Array.from({ length: SOURCES_DESCRIBED + 5 }, (_, i) => ({
      source: `s-${String(i).padStart(2, '0')}.md`,
      summary: i === 0 ? 'Rust notes' : '',
    }));
    const line = describeAgent(profile, sources.reverse()).find((d) =>
      d.startsWith('Shares knowledge from'),
    )!;
    expect(line).toMatch(/^Shares knowledge from s-00\.md \(Rust notes\), s-01\.md, /);
    expect(line).toContain(`s-${SOURCES_DESCRIBED - 1}.md and 5 more sources`);
    expect(line).not.toContain(`s-${SOURCES_DESCRIBED}.md`);
  });
});
