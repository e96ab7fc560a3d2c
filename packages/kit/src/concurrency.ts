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
