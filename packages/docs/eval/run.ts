/**
 * `pnpm eval:retrieval`: ranks the evaluation questions over each corpus with Lore's docs search
 * and with a plain BM25 baseline in the same run, prints recall@1, recall@5 and MRR for both and
 * the questions Lore's ranking missed. Exits 1 below the floors CI enforces (`targets.ts`).
 */
import { sharedEmbedder } from '@lore/kit';
import { evaluateRetrieval, formatTable } from './retrieval.js';
import { belowFloors, missedTargets, RETRIEVAL_FLOORS, RETRIEVAL_TARGETS } from './targets.js';

const started = performance.now();
// The service's default embedder (LORE_EMBEDDINGS=local), or the one the environment names; off: words only.
const choice = process.env.LORE_EMBEDDINGS ?? 'local';
const embedder = sharedEmbedder({
  LORE_EMBEDDINGS: choice,
  LORE_EMBEDDINGS_BASE_URL: process.env.LORE_EMBEDDINGS_BASE_URL,
  LORE_EMBEDDINGS_MODEL: process.env.LORE_EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
  LORE_EMBEDDINGS_API_KEY: process.env.LORE_EMBEDDINGS_API_KEY,
  LORE_EMBEDDINGS_IDLE_MS: 300_000,
});
const result = await evaluateRetrieval({ embedder });
process.stdout.write(`${formatTable(result)}\n\n`);
for (const c of result.corpora) {
  process.stdout.write(
    `${c.corpus}: search median ${c.msPerSearch.lore.toFixed(2)} ms, p99 ${c.p99PerSearch.lore.toFixed(2)} ms (baseline ${c.msPerSearch.baseline.toFixed(2)} / ${c.p99PerSearch.baseline.toFixed(2)} ms)` +
      `${c.embedSeconds !== undefined ? `; ${c.chunks} chunks embedded in the background in ${c.embedSeconds.toFixed(1)} s (${embedder?.model})` : ''}\n`,
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
// The model thread would keep the process alive for its idle period.
process.exit();
