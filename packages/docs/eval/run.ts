/**
 * `pnpm eval:retrieval`: ranks the evaluation questions over each corpus with Lore's docs search
 * and with a plain BM25 baseline in the same run, prints recall@1, recall@5 and MRR for both and
 * the questions Lore's ranking missed. Exits 1 below the floors CI enforces (`targets.ts`).
 */
import { evaluateRetrieval, formatTable } from './retrieval.js';
import { belowFloors, missedTargets, RETRIEVAL_FLOORS, RETRIEVAL_TARGETS } from './targets.js';

const started = performance.now();
const result = await evaluateRetrieval();
process.stdout.write(`${formatTable(result)}\n\n`);
for (const c of result.corpora) {
  process.stdout.write(
    `${c.corpus}: median search ${c.msPerSearch.lore.toFixed(2)} ms (baseline ${c.msPerSearch.baseline.toFixed(2)} ms)\n`,
  );
  for (const m of c.misses)
    process.stdout.write(
      `  ${m.rank ? `@${m.rank}` : 'missed'}: ${m.question}\n      expected ${m.expected.join(' | ')}; above it: ${m.above.join(', ') || 'nothing'}\n`,
    );
}
const below = belowFloors(result.all);
const missed = missedTargets(result.all);
process.stdout.write(
  `\nfloors (recall@5 ≥ ${RETRIEVAL_FLOORS.recall5}, recall@1 ≥ ${RETRIEVAL_FLOORS.recall1}, MRR ≥ ${RETRIEVAL_FLOORS.mrr}, none below the baseline): ${below.length ? `FAILED: ${below.join('; ')}` : 'passed'}\n` +
    `targets (recall@5 ≥ ${RETRIEVAL_TARGETS.recall5}, recall@1 ≥ ${RETRIEVAL_TARGETS.recall1}): ${missed.length ? `not met: ${missed.join('; ')}` : 'met'}\n` +
    `(${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
);
process.exitCode = below.length ? 1 : 0;
