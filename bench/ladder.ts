/**
 * The protocol ladder: the same read-only call measured on every rung, from a bare Hono echo
 * through the MCP SDK's own floor to Lore (a service direct, the all-in-one, the distributed
 * aggregator), variants interleaved round by round so that a busy machine weighs on all of
 * them alike. Ratios are taken per round, then the median of the rounds is reported.
 */
import { cpuMs, type LoadResult, load, percentile } from './lib.js';

export interface Rung {
  key: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Processes whose CPU the call costs (the distributed path: aggregator and service). */
  pids: number[];
}

export interface RungResult extends LoadResult {
  /** CPU per call across the rung's processes (ms). */
  cpuPerCall: number;
}

export const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

export async function measure(rung: Rung, connections: number, seconds: number): Promise<RungResult> {
  const before = rung.pids.map(cpuMs);
  const r = await load(rung.url, { connections, seconds, body: rung.body, headers: rung.headers });
  const used = rung.pids.reduce((n, pid, i) => n + cpuMs(pid) - before[i]!, 0);
  return { ...r, cpuPerCall: r.total ? used / r.total : Number.NaN };
}

/** Every rung once per round, `rounds` times; the results per rung, in round order. */
export async function runLadder(
  rungs: Rung[],
  opts: { rounds: number; connections: number; seconds: number },
): Promise<Map<string, RungResult[]>> {
  const out = new Map<string, RungResult[]>(rungs.map((r) => [r.key, []]));
  for (let round = 0; round < opts.rounds; round++)
    for (const rung of rungs) out.get(rung.key)!.push(await measure(rung, opts.connections, opts.seconds));
  return out;
}

/** The median over rounds of `f(round)`, and the rounds' spread around it (max − min) / 2. */
export function perRound(
  rounds: number,
  f: (i: number) => number,
): { value: number; band: number; values: number[] } {
  const values = Array.from({ length: rounds }, (_, i) => f(i));
  return {
    value: median(values),
    band: (Math.max(...values) - Math.min(...values)) / 2,
    values,
  };
}

export interface LadderTarget {
  name: string;
  /** The figure, from the results of one round. */
  of: (r: (key: string) => RungResult) => number;
  /** At least (`min`) or at most (`max`) this. */
  min?: number;
  max?: number;
}

/** The targets of the fast path, as ratios measured in the same run. */
export const TARGETS: LadderTarget[] = [
  {
    name: 'service direct / minimal SDK server, throughput',
    of: (r) => r('direct').rps / r('minimal').rps,
    min: 0.6,
  },
  {
    name: 'all-in-one / service direct, throughput',
    of: (r) => r('aio').rps / r('direct').rps,
    min: 0.9,
  },
  {
    name: 'all-in-one / SDK v1 reference server, throughput',
    of: (r) => r('aio').rps / r('v1').rps,
    min: 2,
  },
  {
    name: 'distributed / service direct, throughput',
    of: (r) => r('dist').rps / r('direct').rps,
    min: 0.7,
  },
  {
    name: 'distributed / service direct, p50 latency',
    of: (r) => r('dist').p50 / r('direct').p50,
    max: 1.3,
  },
  {
    name: 'distributed p99 / its p50',
    of: (r) => r('dist').p99 / r('dist').p50,
    max: 3,
  },
];
