/**
 * CPU profiles without node flags (--cpu-prof cannot go in NODE_OPTIONS): the inspector's
 * profiler, started and stopped from the code. BENCH_CPU_PROF=<dir> makes `pnpm bench` write
 * `<dir>/<suite>.cpuprofile` for each suite, except those that profile their timed phases
 * only: ingest (`ingest-knowledge`, `ingest-docs`) and broadcast (the 1,000-agent ask:
 * `broadcast-node-a-and-driver` for this process, `node-bench-b` for the child node). Summarise one with `npx tsx bench/tools/summarize-profile.ts <file>`
 * (or open it in Chrome DevTools).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

export async function startCpuProfile(): Promise<(dir: string, name: string) => Promise<string>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return async (dir, name) => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    session.disconnect();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return file;
  };
}

/** Runs `fn`, profiled into `<BENCH_CPU_PROF>/<name>.cpuprofile` when BENCH_CPU_PROF is set. */
export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return fn();
  const stop = await startCpuProfile();
  try {
    return await fn();
  } finally {
    process.stderr.write(`profile: ${await stop(dir, name)}\n`);
  }
}
