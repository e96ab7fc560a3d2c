/**
 * The tests' time scale, `LORE_TEST_TIME_SCALE` (vitest.timing.ts sets it in every tier's
 * environment and in the processes the tests start): 1 on the busy 2-core machine the figures
 * are sized for, 2 or 3 on a slower one.
 */
export function testTimeScale(): number {
  const n = Number(process.env.LORE_TEST_TIME_SCALE || 1);
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

/** A test's own wait (a poll's timeout, a request's deadline) at this run's time scale. */
export function scaled(ms: number): number {
  return Math.round(ms * testTimeScale());
}
