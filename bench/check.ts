/**
 * `pnpm bench:check`: the CI guard of the fast path. A short protocol ladder (2 rounds of 2 s,
 * no CPU profile) and each ratio against its floor: the job fails when a ratio falls below its
 * floor by more than the noise band measured on this machine (NOISE_BAND, relative).
 *
 * The floors are the targets of the fast path where they are reached, and what is reached today
 * where they are not yet (see BENCHMARKS.md): the guard then stops regressions, and a floor is
 * raised to its target once the target is met.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TARGETS } from './ladder.js';
import { protocolSuite } from './suites/protocol.js';

/**
 * The spread of a ratio between rounds of one run, relative to its median, measured on this
 * 2-core machine with the direct exchange (BENCHMARKS.md, "The direct exchange"): ±30–60 % on a
 * near-quiet run of three 10 s rounds (service / minimal ±36 %, all-in-one / direct ±30 %,
 * all-in-one / server-everything ±59 %, distributed ±38 %, its p50 ±52 %, its p99/p50 ±36 %).
 * The guard's two short rounds are noisier still, so a ratio fails only when it is worse than its
 * floor by more than half.
 */
const NOISE_BAND = 0.5;

/**
 * Floors by target name: a higher-is-better ratio must stay above, a lower-is-better one below.
 * Met targets are their own floors; the two the all-in-one does not reach yet are held at what
 * it reaches (medians 0.77 and 1.74 in that run): the server-everything floor fails a build that
 * loses the direct exchange (0.79 without it). The distributed tail is held at what the ladder
 * measures since the service got cheaper (4.60, 3.73 and 4.27 in three runs of 2 December): a
 * relay that only passes bytes measures 3.64 here, so 3 is out of this machine's reach
 * (BENCHMARKS.md, "2 December, evening").
 */
const FLOORS: Record<string, number> = {
  'service direct / minimal SDK server, throughput': 0.6,
  'all-in-one / service direct, throughput': 0.75,
  'all-in-one / SDK v1 reference server, throughput': 1.7,
  'distributed / service direct, throughput': 0.7,
  'distributed / service direct, p50 latency': 1.3,
  'distributed p99 / its p50': 4.3,
};

process.env.BENCH_ROUNDS ??= '2';
process.env.BENCH_PROTOCOL_PROFILE = '0';
const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-check-'));
try {
  const rows = await protocolSuite({ seconds: Number(process.env.BENCH_SECONDS ?? 2), dataDir });
  let failed = 0;
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
