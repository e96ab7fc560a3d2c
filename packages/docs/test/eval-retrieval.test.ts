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
  }, 120_000);
});
