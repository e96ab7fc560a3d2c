/**
 * Loaded with `--import` into a process the bench starts: SIGUSR1 starts a CPU profile,
 * SIGUSR2 writes it to BENCH_PROFILE_OUT (a file path) and prints `profile written <file>`.
 * The profile then covers exactly the measured window, not the start-up.
 */
import { startCpuProfile } from '../tools/cpu-profile.js';

let stop: Awaited<ReturnType<typeof startCpuProfile>> | undefined;
process.on('SIGUSR1', () => {
  void startCpuProfile().then((s) => {
    stop = s;
    process.stderr.write('profile started\n');
  });
});
process.on('SIGUSR2', () => {
  const s = stop;
  stop = undefined;
  const out = process.env.BENCH_PROFILE_OUT ?? `./profile-${process.pid}.cpuprofile`;
  const dir = out.replace(/\/[^/]*$/, '') || '.';
  const name = out.slice(dir.length + 1).replace(/\.cpuprofile$/, '');
  void s?.(dir, name).then((f) => process.stderr.write(`profile written ${f}\n`));
});
