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
 */
export async function withRetries<T>(
  settings: RetrySettings,
  retryable: boolean,
  fn: () => Promise<T>,
  signal: AbortSignal,
  log: Logger,
  deadline: number,
): Promise<T> {
  if (!retryable || settings.attempts <= 1) return fn();
  const policy = retry(
    handleWhen(
      (err) =>
        !signal.aborted &&
        !(err instanceof ProtocolError) &&
        !tooLarge(err) &&
        Date.now() + settings.baseDelayMs < deadline,
    ),
    {
      maxAttempts: settings.attempts - 1,
      backoff: new ExponentialBackoff({ initialDelay: settings.baseDelayMs, maxDelay: settings.deadlineMs }),
    },
  );
  policy.onRetry((r) =>
    log.debug(
      { delay: Math.round(r.delay), err: 'error' in r ? (r.error as Error).message : undefined },
      'retrying idempotent call',
    ),
  );
  return policy.execute(() => fn());
}

/** An upstream refused the request for its size (HTTP 413): retrying cannot help. */
export function tooLarge(err: unknown): boolean {
  const e = err as { status?: unknown; code?: unknown; message?: unknown };
  return e?.status === 413 || e?.code === 413 || /\b413\b|too large/i.test(String(e?.message ?? ''));
}
