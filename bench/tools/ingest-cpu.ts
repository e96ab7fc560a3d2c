/**
 * CPU of the knowledge ingest through MCP (the ingest suite's knowledge phase, without its
 * baselines): `npx tsx --conditions=development bench/tools/ingest-cpu.ts [sources] [rounds]`.
 * Each round ingests the same sources into a fresh data directory and prints the process's CPU
 * (every thread, the parser thread included) and wall time per chunk; CPU is the steadier figure
 * on a shared machine. It also prints how long each source waited on its parser-thread task
 * (the pool's `run`, from posting the task to its result: what the call waits for there,
 * against the parser thread's CPU in the thread list).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBus } from '@lore/kit/bus';
import { appFetch, connectClient, ok } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { KnowledgeSourceAdded } from '@lore/schema';
import { createUsersService } from '@lore/users';
import { parserPool } from '../../packages/ingest/src/index.js';
import { Corpus } from '../corpus.js';
import { benchDeps, registerAgent, until } from '../services.js';
import { profiled } from './cpu-profile.js';

const sources = Number(process.argv[2] ?? 60);
const rounds = Number(process.argv[3] ?? 3);
const corpus = new Corpus(1234);
const texts = Array.from({ length: sources }, (_, s) => corpus.markdown(corpus.topic(s), 100));

/** CPU ticks (user + system, 1/100 s) of each thread of this process, by thread id and name. */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${tid} ${name}`, Number(f[11]) + Number(f[12]));
    } catch {
      // The thread ended.
    }
  }
  return out;
}

/** Per-thread CPU over a span, in µs a chunk, the busiest first (threads under 2 µs left out). */
function threadShares(before: Map<string, number>, chunks: number): string {
  const after = threadTicks();
  return [...after]
    .map(([k, v]) => [k, ((v - (before.get(k) ?? 0)) * 10_000) / chunks] as const)
    .filter(([, us]) => us >= 2)
    .sort((a, b) => b[1] - a[1])
    .map(([k, us]) => `${k.replace(/^\d+ /, '')} ${us.toFixed(0)}`)
    .join(', ');
}

async function round(r: number): Promise<{ cpuUs: number; wallMs: number; chunks: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-ingest-cpu-'));
  const bus = new MemoryBus();
  const deps = benchDeps(dir, {}, bus);
  const users = await createUsersService(deps);
  const knowledge = await createKnowledgeService(deps);
  await users.start();
  await knowledge.start();
  try {
    const agent = await registerAgent(users, 'bench_ingester');
    const client = await connectClient(appFetch(knowledge), { key: agent.key });
    let delivered = 0;
    await bus.listen(KnowledgeSourceAdded.subject, () => {
      delivered++;
    });
    await ok(client, 'updateKnowledgeSources', {
      file_name: 'warm-up.md',
      file_content: corpus.markdown(corpus.topic(9999), 5),
    });
    await until(async () => delivered >= 1, 10_000);
    delivered = 0;
    let chunks = 0;
    const ticks = threadTicks();
    const c0 = process.cpuUsage();
    parserMs = 0;
    const t0 = performance.now();
    // BENCH_CPU_PROF=<dir>: a profile of this thread for each round (bench/tools/cpu-profile.ts).
    await profiled(`ingest-cpu-${r + 1}`, async () => {
      for (let s = 0; s < sources; s++) {
        const res = await ok<{ chunks: number }>(client, 'updateKnowledgeSources', {
          file_name: `source-${s}.md`,
          file_content: texts[s]!,
        });
        chunks += res.data.chunks;
      }
      await until(async () => delivered >= sources, 60_000, 1);
    });
    const c = process.cpuUsage(c0);
    threads = threadShares(ticks, chunks);
    const wallMs = performance.now() - t0;
    waited = parserMs / sources;
    await client.close();
    return { cpuUs: c.user + c.system, wallMs, chunks };
  } finally {
    await knowledge.stop();
    await users.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

let threads = '';
let waited = 0;

// Wall time of the parser-thread tasks (the pool the knowledge service uses), summed.
const pool = parserPool();
const run = pool.run.bind(pool);
let parserMs = 0;
pool.run = (task, transfer, onPart) => {
  const t0 = performance.now();
  return run(task, transfer, onPart).finally(() => {
    parserMs += performance.now() - t0;
  });
};

for (let r = 0; r < rounds; r++) {
  const { cpuUs, wallMs, chunks } = await round(r);
  console.log(
    `round ${r + 1}: ${chunks} chunks, CPU ${(cpuUs / chunks).toFixed(1)} µs/chunk ` +
      `(${Math.round((chunks * 1e6) / cpuUs)} chunks per CPU second), wall ${Math.round((chunks * 1000) / wallMs)} chunks/s ` +
      `(${(wallMs / sources).toFixed(1)} ms a source, ${waited.toFixed(1)} of them waiting on the parser thread); threads (µs a chunk): ${threads}`,
  );
}
