/**
 * `pnpm eval:discovery`: the discovery set through the users service, words only and words +
 * meaning, beside plain BM25 and meaning only. Exits 1 when words + meaning (agent_search) puts
 * fewer than `FLOOR_RECALL3` of the agents in its first three or falls below words only.
 */
import { evaluateDiscovery, formatDiscovery } from './discovery.js';

/** What the fused agent_search must keep (measured 2026-12: see the README). */
const FLOOR_RECALL3 = 0.85;

const started = performance.now();
const results = await evaluateDiscovery();
process.stdout.write(`${formatDiscovery(results)}\n\n`);
for (const r of results) {
  if (!r.misses.length) continue;
  process.stdout.write(`${r.ranking}:\n${r.misses.map((m) => `  ${m}`).join('\n')}\n`);
}
const hybrid = results.find((r) => r.ranking.startsWith('agent_search, words + meaning'))!;
const words = results.find((r) => r.ranking.startsWith('agent_search, words only'))!;
const failed: string[] = [];
if (hybrid.metrics.recall3 < FLOOR_RECALL3)
  failed.push(`recall@3 ${hybrid.metrics.recall3.toFixed(3)} < ${FLOOR_RECALL3}`);
if (hybrid.metrics.recall3 < words.metrics.recall3) failed.push('words + meaning below words only');
process.stdout.write(
  `\nfloor (agent_search words + meaning recall@3 ≥ ${FLOOR_RECALL3}, not below words only): ${failed.length ? `FAILED: ${failed.join('; ')}` : 'passed'}\n(${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
);
process.exitCode = failed.length ? 1 : 0;
// The model thread would keep the process alive for its idle period.
process.exit();
