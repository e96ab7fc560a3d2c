import type { Metrics } from './retrieval.js';

export const RETRIEVAL_TARGETS = { recall5: 0.98, recall1: 0.85 } as const;

/** What falls short of the targets (empty when all are met). */
export function meetsTargets(all: { lore: Metrics; baseline: Metrics }): string[] {
  const out: string[] = [];
  const { lore, baseline } = all;
  if (lore.recall5 < RETRIEVAL_TARGETS.recall5) out.push(`recall@5 ${lore.recall5.toFixed(3)}`);
  if (lore.recall1 < RETRIEVAL_TARGETS.recall1) out.push(`recall@1 ${lore.recall1.toFixed(3)}`);
  if (lore.recall1 <= baseline.recall1) out.push('recall@1 not above the baseline');
  if (lore.mrr <= baseline.mrr) out.push('MRR not above the baseline');
  return out;
}
