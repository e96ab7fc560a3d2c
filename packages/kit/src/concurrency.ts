import pLimit from 'p-limit';
/**
 * Runs `fn` over `items` with at most `limit` in flight. Every item is attempted: a failure is
 * collected, not thrown, so that one recipient's trouble does not hold up the others.
 */
export async function settleInPool<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<Array<{ item: T; err: unknown }>> {
  const failed: Array<{ item: T; err: unknown }> = [];
  const slot = pLimit(Math.max(1, limit));
  await Promise.all(
    items.map((item) =>
      slot(async () => {
        try {
          await fn(item);
        } catch (err) {
          failed.push({ item, err });
        }
      }),
    ),
  );
  return failed;
}

/** A gate letting at most `n` calls run at once; the others wait their turn, first come first served. */
export function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  const slot = pLimit(n);
  return (fn) => slot(fn);
}

/**
 * Group commit: writes queued while a transaction is committing share the next one, so that
 * many concurrent callers pay for a few commits instead of one each. `commit` gets the batch
 * and returns one result per item, in order. A batch that fails is retried item by item, so a
 * single bad item fails alone.
 */
export class GroupCommit<I, R> {
  private queue: Array<{ item: I; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  private draining = false;

  constructor(
    private readonly commit: (items: I[]) => Promise<R[]>,
    private readonly maxBatch = 64,
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.commit(batch.map((b) => b.item));
          for (const [i, b] of batch.entries()) b.resolve(results[i]!);
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else
            for (const b of batch)
              await this.commit([b.item]).then(
                ([r]) => b.resolve(r!),
                (e: unknown) => b.reject(e),
              );
        }
      }
    } finally {
      this.draining = false;
    }
  }
}

export interface BackgroundWorkOptions {
  /** How long after the last `wake` the work starts (writes in a row are not slowed by it). */
  quietMs: number;
  /** After a failure, when the work is tried again. */
  retryMs: number;
  /** Told of a failure that escaped `work` (it is tried again after `retryMs`). */
  onFailure: (err: unknown) => void;
}

/**
 * Work a service does in the background after its writes (vectors, classifications): woken by
 * each write, it starts once writes pause for `quietMs`, runs once more when woken while running,
 * never twice at once, and after a failure (thrown, or asked for with `retryLater`) tries again
 * after `retryMs`. `work` reads what is left to do each time, so a run after a restart carries on.
 */
export class BackgroundWork {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private quiet: NodeJS.Timeout | undefined;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly opts: BackgroundWorkOptions,
  ) {}

  /** Stopping: the work should return at its next check. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** A wake waits for its quiet period: writes arrived since the run began, which may yield to them. */
  get waking(): boolean {
    return this.quiet !== undefined;
  }

  /** Something was written: the work runs once writes pause for `quietMs` (at once with 0). */
  wake(quietMs = this.opts.quietMs): void {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = undefined;
    clearTimeout(this.quiet);
    this.quiet = undefined;
    if (quietMs > 0) {
      this.quiet = setTimeout(() => {
        this.quiet = undefined;
        this.wake(0);
      }, quietMs);
      this.quiet.unref();
      return;
    }
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  /** The work could not finish (an endpoint down): it runs again after `retryMs`. */
  retryLater(): void {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.wake(0), this.opts.retryMs);
    this.retry.unref();
  }

  /** Resolves once no run is in progress or due. */
  async settled(): Promise<void> {
    while (this.running || this.quiet) {
      if (this.running) await this.running;
      else await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Stops: nothing new starts; resolves when the run in progress has returned. */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearTimeout(this.quiet);
    this.quiet = undefined;
    return this.settled();
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.work();
      } while (this.again && !this.stopped);
    } catch (err) {
      // A failure outside what `work` handles (the database closed under a stopping service)
      // is told and tried again later, never left to reject unheard.
      if (this.stopped) return;
      this.opts.onFailure(err);
      this.retryLater();
    }
  }
}
