/**
 * `pnpm bench:meaning`: what reading meaning costs (`meaningFigures` in bench/suites/meaning.ts):
 * the local embedder's load, query latency, passages a second and memory, and knowledge search
 * with the question's embedding included beside words only, at `BENCH_MEANING_CHUNKS` (100,000)
 * chunks of one agent and `BENCH_MEANING_DB_CHUNKS` (2,000) of another, `BENCH_MEANING_QUERIES`
 * (200) questions each. `--json FILE` writes the figures.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { meaningFigures } from './suites/meaning.js';

const { values: args } = parseArgs({ options: { json: { type: 'string' } } });
const figures = await meaningFigures({
  chunks: Number(process.env.BENCH_MEANING_CHUNKS ?? 100_000),
  dbChunks: Number(process.env.BENCH_MEANING_DB_CHUNKS ?? 2_000),
  queries: Number(process.env.BENCH_MEANING_QUERIES ?? 200),
  say: (s) => process.stdout.write(`${s}\n`),
});
if (args.json)
  writeFileSync(args.json, `${JSON.stringify({ at: new Date().toISOString(), figures }, null, 2)}\n`);
