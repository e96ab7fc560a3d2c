import type { Logger } from '@lore/kit';
import { ProtocolError } from '@modelcontextprotocol/server';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';

export interface RetrySettings {
  attempts: number;
  deadlineMs: number;
  baseDelayMs: number;
}

/**
 * Transport failures of read-only or idempotent tools are retried with backoff (cockatiel)
 * within the deadline: a refusal by the protocol or for size, a cancelled call, or a next
 * attempt that could not start before the deadline ends the retries with that failure.
 *
 * The first attempt runs as a plain call: the retry policy (and the logger it reports to) is
 * built only once an attempt has failed in a way that may be retried, so a call that succeeds
 * the first time — nearly all of them — costs no policy, no backoff and no child logger. The
 * policy then sees that first failure as its own first attempt: the attempts, backoff and
 * deadline are those of a policy that ran every attempt.
 */
export function withRetries<T>(
  settings: RetrySettings,
  retryable: boolean,
  fn: () => Promise<T>,
  /** The caller's signal, or a view of it read only when a call fails. */
  signal: Pick<AbortSignal, 'aborted'>,
  log: Logger | (() => Logger),
  deadline: number,
): Promise<T> {
  // The first attempt's own promise, not one of an async function around it: no promise more per call.
  let first: Promise<T>;
  try {
    first = fn();
  } catch (error) {
    first = Promise.reject(error);
  }
  if (!retryable || settings.attempts <= 1) return first;
  return first.catch((error: unknown) => retryAfter(settings, fn, signal, log, deadline, error));
}

/** The attempts after a first that failed: a cockatiel policy that sees that failure as its first attempt. */
async function retryAfter<T>(
  settings: RetrySettings,
  fn: () => Promise<T>,
  signal: Pick<AbortSignal, 'aborted'>,
  log: Logger | (() => Logger),
  deadline: number,
  error: unknown,
): Promise<T> {
  const mayRetry = (err: unknown) =>
    !signal.aborted &&
    !(err instanceof ProtocolError) &&
    !tooLarge(err) &&
    Date.now() + settings.baseDelayMs < deadline;
  if (!mayRetry(error)) throw error;
  let first: { error: unknown } | undefined = { error };
  const policy = retry(handleWhen(mayRetry), {
    maxAttempts: settings.attempts - 1,
    backoff: new ExponentialBackoff({ initialDelay: settings.baseDelayMs, maxDelay: settings.deadlineMs }),
  });
  const logger = typeof log === 'function' ? log() : log;
  policy.onRetry((r) =>
    logger.debug(
      { delay: Math.round(r.delay), err: 'error' in r ? (r.error as Error).message : undefined },
      'retrying idempotent call',
    ),
  );
  return policy.execute(() => {
    const failed = first;
    first = undefined;
    return failed ? Promise.reject(failed.error) : fn();
  });
}

/** An upstream refused the request for its size (HTTP 413): retrying cannot help. */
export function tooLarge(err: unknown): boolean {
  const e = err as { status?: unknown; code?: unknown; message?: unknown };
  return e?.status === 413 || e?.code === 413 || /\b413\b|too large/i.test(String(e?.message ?? ''));
}
