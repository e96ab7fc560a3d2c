import { describe, expect, it } from 'vitest';
import { evaluateRetrieval, formatTable } from '../eval/retrieval.js';
import { belowFloors } from '../eval/targets.js';

describe('retrieval evaluation (pnpm eval:retrieval)', () => {
  it('ranks the evaluation set at or above its floors and never below plain BM25', async () => {
    const result = await evaluateRetrieval();
    console.log(`[eval:retrieval]\n${formatTable(result)}`);
    expect(result.all.lore.questions).toBeGreaterThanOrEqual(80);
    expect(result.corpora.length).toBeGreaterThanOrEqual(2);
    expect(belowFloors(result.all)).toEqual([]);
    // Each ranking is scored on both halves, and the halves are the whole set.
    for (const ranking of [result.all.halves.lore, result.all.halves.baseline])
      expect(ranking.tune.questions + ranking['held-out'].questions).toBe(result.all.lore.questions);
  }, 120_000);
});
