/**
 * Every timeout of the test tiers from one setting: `LORE_TEST_TIME_SCALE` (default 1), a
 * factor over figures sized for a busy 2-core machine (six people's work sharing it). A slower
 * machine sets 2 or 3; nothing else changes. What it scales:
 *
 * - vitest's `testTimeout` and `hookTimeout` of every project and tier (a test or hook that
 *   names its own figure keeps it);
 * - the parse time limit of the processes and services the tests start
 *   (`LORE_INGEST_TIME_LIMIT_MS`: 30 s at scale 1, 10 s in production), passed through the tests'
 *   environment;
 * - the deadline of every request between services on the bus (`LORE_BUS_TIMEOUT_SCALE`: 3 at
 *   scale 1, over each caller's own figure and the bus's 5 s default; 1 in production), the same way;
 * - a test's own waits that name a figure through `scaled(ms)` (`@lore/kit/testing`).
 */
export function parseTimeScale(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1 || n > 20)
    throw new Error(`LORE_TEST_TIME_SCALE must be a number from 1 to 20, got '${raw}'`);
  return n;
}

export const TIME_SCALE = parseTimeScale(process.env.LORE_TEST_TIME_SCALE);

/** The figures at scale 1, per tier: what a busy 2-core machine needs, with room. */
const BASE = {
  default: { testTimeout: 60_000, hookTimeout: 90_000 },
  slow: { testTimeout: 120_000, hookTimeout: 180_000 },
  faults: { testTimeout: 300_000, hookTimeout: 180_000 },
} as const;

/** A tier's `testTimeout` and `hookTimeout` at a scale (this run's by default). */
export function tierTimeouts(
  tier: keyof typeof BASE,
  scale = TIME_SCALE,
): { testTimeout: number; hookTimeout: number } {
  const b = BASE[tier];
  return { testTimeout: b.testTimeout * scale, hookTimeout: b.hookTimeout * scale };
}

/** The environment every tier's tests (and the processes they start) run with, at a scale. */
export function timingEnv(scale = TIME_SCALE): Record<string, string> {
  return {
    LORE_TEST_TIME_SCALE: String(scale),
    // Three times production's 10 s: on a busy machine a parser waits for a core, and its wall
    // clock (twice this) runs while it waits.
    LORE_INGEST_TIME_LIMIT_MS: String(Math.round(30_000 * scale)),
    // Three times production's deadlines, for the same reason: an answering handler waits for a
    // core (a 5 s request timed out under load: rpc.approvals.evaluate in the approvals tests).
    LORE_BUS_TIMEOUT_SCALE: String(3 * scale),
  };
}

export const TIMING_ENV = timingEnv();
