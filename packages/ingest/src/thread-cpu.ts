import { readFileSync } from 'node:fs';

/** Linux counts a thread's CPU time in clock ticks of 1/100 s (USER_HZ, 100 on every architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * Milliseconds of CPU a thread has used, from `/proc/<pid>/task/<tid>/stat` (utime + stime,
 * fields 14 and 15): a thread of this process by default, or of process `pid` (a parser
 * process's main thread is its pid); undefined where that cannot be read.
 */
export function threadCpuMs(tid: number, pid: number | 'self' = 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}
