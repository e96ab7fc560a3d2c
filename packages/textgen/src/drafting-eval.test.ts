import { describe, expect, it } from 'vitest';
import { evaluateDrafting } from './drafting-eval.js';

/** The coverage the drafter reached when this set was written; CI fails below it. */
const MIN_COVERAGE = 0.95;

describe('drafting evaluation', () => {
  it('drafts answers holding the facts each question needs, every passage cited, gaps named', () => {
    const r = evaluateDrafting();
    console.log(
      `[drafting] ${r.cases} cases: fact coverage ${r.coverage.toFixed(3)}, complete ${r.complete}/${r.cases}, ` +
        `uncited ${r.uncited}, partial answers flagged ${r.partialFlagged}/${r.partialCases}, false partial ${r.falsePartial}` +
        (r.misses.length ? `\n  ${r.misses.join('\n  ')}` : ''),
    );
    expect(r.cases).toBeGreaterThanOrEqual(40);
    expect(r.uncited).toBe(0);
    expect(r.coverage).toBeGreaterThanOrEqual(MIN_COVERAGE);
    expect(r.partialCases).toBeGreaterThanOrEqual(5);
    expect(r.partialFlagged).toBe(r.partialCases);
    expect(r.falsePartial).toBe(0);
  });
});
