/**
 * `pnpm bench:check`: the CI guard of the fast path. The size of tools/list against its ceilings
 * (CATALOG_CEILINGS), meaning at a small size against its ceilings (MEANING_CEILINGS), then a
 * short protocol ladder (2 rounds of 2 s,
 * no CPU profile) and each ratio against its floor: the job fails when a ratio falls below its
 * floor by more than the noise band measured on this machine (NOISE_BAND, relative).
 *
 * The floors are the targets of the fast path where they are reached, and what is reached today
 * where they are not yet (BENCHMARKS.md, "CI guard: `pnpm bench:check`"): the guard then stops
 * regressions, and a floor is raised to its target once the target is met.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TARGETS } from './ladder.js';
import { catalogSizes } from './suites/catalog.js';
import { meaningFigures } from './suites/meaning.js';
import { protocolSuite } from './suites/protocol.js';

/**
 * The spread of a ratio between rounds of one run, relative to its median: ±30–60 % on this
 * 2-core machine (near-quiet runs of three 10 s rounds). The guard's two short rounds are noisier
 * still, so a ratio fails only when it is worse than its floor by more than half.
 */
const NOISE_BAND = 0.5;

/**
 * Floors by target name: a higher-is-better ratio must stay above, a lower-is-better one below.
 * Met targets are their own floors; the others are held at what is reached, so that the guard
 * stops regressions (the server-everything floor fails a build without the direct exchange). The
 * distributed tail's target is out of this machine's reach (BENCHMARKS.md, "Protocol: the
 * ladder", has the figures behind each floor).
 */
const FLOORS: Record<string, number> = {
  'service direct / minimal SDK server, throughput': 0.6,
  'all-in-one / service direct, throughput': 0.75,
  'all-in-one / SDK v1 reference server, throughput': 1.7,
  'distributed / service direct, throughput': 0.7,
  'distributed / service direct, p50 latency': 1.3,
  'distributed p99 / its p50': 4.3,
};

/**
 * Ceilings on what `tools/list` weighs, in bytes of JSON (a size, not a speed: no noise band).
 * Measured on 2 December after the toolsets and the compacted output schemas (whole catalog
 * 87,798 B for 49 tools, from 105 KB for 53 before): a tool or a schema that grows the catalog
 * past them must earn it, or the ceiling is raised with a reason. Raised the same day for the
 * `foundBy` of every search result (which signal, words or meaning, found a hit): whole catalog
 * 91,362 B, knowledge 15,518 B, docs 8,176 B.
 */
const CATALOG_CEILINGS: Record<string, number> = {
  'whole catalog': 93_000,
  'whole catalog, MCP Apps host': 98_500,
  'toolset knowledge': 16_000,
  'toolset questions': 18_500,
  'toolset community': 39_000,
  'toolset docs': 8_500,
  'toolset account': 10_000,
  'toolset admin': 2_000,
};

/**
 * Meaning (`meaningFigures` at 5,000 chunks of one agent, compared in the process, and 1,000 of
 * another, compared by the database, 60 questions): the query embedding's median against its
 * target, and each search with the question embedded against words alone in the same run (p99
 * ratios), held under the noise band like the ladder's. BENCHMARKS.md, "Meaning", has the figures.
 */
const MEANING_CEILINGS: Array<{ figure: string; ceiling: number; why: string }> = [
  { figure: 'query embedding p50, ms', ceiling: 30, why: 'target < 30 ms' },
  {
    figure: '5k chunks (vectors in the process): p99 ratio meaning / words',
    ceiling: 2.2,
    why: 'reached: 2.07 here, 2.15 at 100k; 4.1 with cosineTopK',
  },
  {
    figure: '1k chunks (vectors compared by the database): p99 ratio meaning / words',
    ceiling: 4.4,
    why: 'reached: 4.35 here, 1.55 at 2k; 20.7 at 2k before the agent-and-model index',
  },
];

process.env.BENCH_ROUNDS ??= '2';
process.env.BENCH_PROTOCOL_PROFILE = '0';
const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-check-'));
try {
  let failed = 0;
  for (const size of await catalogSizes(join(dataDir, 'catalog'))) {
    const ceiling = CATALOG_CEILINGS[size.name];
    if (ceiling === undefined) throw new Error(`no ceiling for ${size.name}`);
    const ok = size.bytes <= ceiling;
    process.stdout.write(
      `${ok ? 'ok  ' : 'FAIL'}  tools/list, ${size.name}: ${size.bytes} B, ~${size.tokens} tokens (ceiling ${ceiling} B)\n`,
    );
    if (!ok) failed++;
  }
  const meaning = await meaningFigures({ chunks: 5_000, dbChunks: 1_000, queries: 60 });
  for (const c of MEANING_CEILINGS) {
    const value = Number(meaning[c.figure]);
    const ok = value <= c.ceiling * (1 + NOISE_BAND);
    process.stdout.write(
      `${ok ? 'ok  ' : 'FAIL'}  meaning, ${c.figure}: ${value.toFixed(2)} (ceiling ${c.ceiling} ± ${NOISE_BAND * 100}%: ${c.why})\n`,
    );
    if (!ok) failed++;
  }
  const rows = await protocolSuite({ seconds: Number(process.env.BENCH_SECONDS ?? 2), dataDir });
  for (const t of TARGETS) {
    const r = rows.find((x) => x.suite === 'ratio' && x.name === t.name);
    const floor = FLOORS[t.name] ?? t.min ?? t.max!;
    if (!r) throw new Error(`no figure for ${t.name}`);
    const higher = t.min !== undefined;
    const ok = higher ? r.value >= floor * (1 - NOISE_BAND) : r.value <= floor * (1 + NOISE_BAND);
    const target = higher ? `≥ ${t.min}` : `≤ ${t.max}`;
    process.stdout.write(
      `${ok ? 'ok  ' : 'FAIL'}  ${t.name}: ${r.value.toFixed(2)} (floor ${floor} ± ${NOISE_BAND * 100}%, target ${target}${r.met ? ' met' : ' not met'})\n`,
    );
    if (!ok) failed++;
  }
  if (failed) process.exitCode = 1;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
