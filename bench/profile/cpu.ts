/**
 * CPU profiles without node flags (--cpu-prof cannot go in NODE_OPTIONS): the inspector's
 * profiler, started and stopped from the code. BENCH_CPU_PROF=<dir> makes `pnpm bench` write
 * `<dir>/<suite>.cpuprofile` for each suite, except broadcast, which profiles the 1,000-agent
 * ask only: `<dir>/broadcast-node-a-and-driver.cpuprofile` (this process) and
 * `<dir>/node-bench-b.cpuprofile` (the child node). Summarise one with `npx tsx bench/profile/summarize.ts <file>`
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
