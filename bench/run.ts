/**
 * `pnpm bench [suite...]`: Lore's benchmarks. Every figure is printed beside a baseline
 * measured in the same run, as a ratio, because this machine is shared and noisy. Results go
 * to bench/results/latest.json. Suites: protocol, bus, search, ingest, broadcast, scale, reads, catalog (the
 * bytes and estimated tokens of tools/list, whole and per toolset), start (`pnpm start` to /healthz:
 * cold, warm and after a source change), memory (`pnpm start`'s
 * processes idle and after a minute of load, one service alone, time to ready; more memory rows come
 * from protocol and search; scale runs one and two replicas on sqld and a three-server
 * NATS cluster). Knobs, all optional: BENCH_SECONDS (autocannon duration),
 * BENCH_SEARCH_CHUNKS, BENCH_SEARCH_QUESTIONS, BENCH_INGEST_CHUNKS, BENCH_BROADCAST_PER_NODE,
 * BENCH_KEEP (keep the suites' databases), BENCH_TRACE and BENCH_CPU_PROF (where the time
 * goes). BENCHMARKS.md has the latest figures.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT, type Row } from './lib.js';
import { broadcastSuite } from './suites/broadcast.js';
import { busSuite } from './suites/bus.js';
import { catalogSuite } from './suites/catalog.js';
import { ingestSuite } from './suites/ingest.js';
import { memorySuite } from './suites/memory.js';
import { protocolSuite } from './suites/protocol.js';
import { readsSuite } from './suites/reads.js';
import { scaleSuite } from './suites/scale.js';
import { searchSuite } from './suites/search.js';
import { startSuite } from './suites/start.js';
import { startCpuProfile } from './tools/cpu-profile.js';

type Suite = (opts: { seconds: number; dataDir: string }) => Promise<Row[]>;

const SUITES: Record<string, Suite> = {
  protocol: protocolSuite,
  bus: busSuite,
  search: searchSuite,
  ingest: ingestSuite,
  broadcast: broadcastSuite,
  scale: scaleSuite,
  reads: readsSuite,
  memory: memorySuite,
  catalog: catalogSuite,
  start: startSuite,
};

const PROFILE_THEMSELVES = new Set(['ingest', 'broadcast']);

async function main() {
  const args = process.argv.slice(2);
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const chosen = args.length ? args : Object.keys(SUITES);
  const unknown = chosen.filter((s) => !SUITES[s]);
  if (unknown.length)
    throw new Error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
  const rows: Row[] = [];
  const started = new Date();
  for (const name of chosen) {
    const dataDir = mkdtempSync(join(tmpdir(), `lore-bench-${name}-`));
    process.stderr.write(`running ${name}…\n`);
    // BENCH_CPU_PROF=<dir>: a CPU profile of this process for each suite (see bench/tools/cpu-profile.ts);
    // ingest and broadcast profile their timed phases only, themselves.
    const profiling =
      process.env.BENCH_CPU_PROF && !PROFILE_THEMSELVES.has(name) ? await startCpuProfile() : undefined;
    try {
      rows.push(...(await SUITES[name]!({ seconds, dataDir })));
    } finally {
      if (profiling) process.stderr.write(`profile: ${await profiling(process.env.BENCH_CPU_PROF!, name)}\n`);
      // BENCH_KEEP=1 keeps the suite's databases (for profiling them afterwards).
      if (process.env.BENCH_KEEP) process.stderr.write(`kept ${dataDir}\n`);
      else rmSync(dataDir, { recursive: true, force: true });
    }
  }
  print(rows);
  const machine = {
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/latest.json'),
    JSON.stringify(
      {
        startedAt: started.toISOString(),
        command: `pnpm bench ${args.join(' ')}`.trim(),
        // The BENCH_* knobs the run had (BENCH_SECONDS, corpus sizes, experiments…).
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_'))),
        machine,
        rows,
      },
      null,
      2,
    ),
  );
  process.stderr.write(`\nwrote bench/results/latest.json\n`);
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function print(rows: Row[]) {
  const lines = rows.map((r) => [
    r.suite,
    r.name,
    `${fmt(r.value)} ${r.unit}`,
    r.baseline ? `${fmt(r.baseline.value)} (${r.baseline.name})` : '',
    r.ratio !== undefined ? `${r.ratio.toFixed(2)}×` : '',
    r.target ? `${r.target} ${r.met ? '✓' : '✗'}` : '',
  ]);
  const head = ['suite', 'figure', 'value', 'baseline', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(
    `${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${lines.map(line).join('\n')}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
