/**
 * The local embedder's figures for the README: load time, query latency, passages per second and
 * resident memory with the model loaded and after it is unloaded.
 *
 *   pnpm --filter @lore/embed bench
 */
import { LocalEmbedder } from '../src/index.js';

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const settle = async () => {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 500));
};

const SENTENCE =
  'Grind finer when the shot runs fast and coarser when it runs slow, aim for twenty-five to thirty seconds, ' +
  'tamp level and purge the group head before each shot so the puck is even.';
/** A passage about as long as a knowledge chunk (some 120 words, under the model's 256 tokens). */
const passage = (i: number) => `Section ${i}. ${SENTENCE} ${SENTENCE} ${SENTENCE} ${SENTENCE}`;

await settle();
const rssBefore = process.memoryUsage().rss;

const loads: number[] = [];
for (let i = 0; i < 3; i++) {
  const e = new LocalEmbedder();
  const t0 = performance.now();
  await e.embed(['warm']);
  loads.push(performance.now() - t0);
  await e.close();
}

const embedder = new LocalEmbedder({ idleMs: 1_000 });
await embedder.embed(['load']);
const queries: number[] = [];
for (let i = 0; i < 200; i++) {
  const t0 = performance.now();
  await embedder.embed([`How do I stop my espresso shot ${i} from running too fast?`]);
  queries.push(performance.now() - t0);
}
const passages = Array.from({ length: 128 }, (_, i) => passage(i));
const t0 = performance.now();
await embedder.embed(passages);
const perSecond = passages.length / ((performance.now() - t0) / 1000);
const rssLoaded = process.memoryUsage().rss;
while (embedder.state !== 'unloaded') await new Promise((r) => setTimeout(r, 100));
await settle();
const rssUnloaded = process.memoryUsage().rss;

console.log(
  JSON.stringify(
    {
      loadMs: loads.map(Math.round),
      queryMs: { p50: +quantile(queries, 0.5).toFixed(1), p99: +quantile(queries, 0.99).toFixed(1) },
      passagesPerSecond: +perSecond.toFixed(1),
      rssMb: { before: mb(rssBefore), loaded: mb(rssLoaded), afterIdleUnload: mb(rssUnloaded) },
    },
    null,
    2,
  ),
);
