import type { PreparedEnd, PreparedPart } from './prepare-source.js';

/**
 * A source's prepared pieces as they arrive from its parser (`streamSource`): `next`
 * hands over what has come since the last call, `end` the keywords once the thread is done.
 * A failure of the parse (a limit) rejects `next` and `end` alike.
 */
export class PreparedStream {
  private readonly parts: PreparedPart[] = [];
  private readonly result: Promise<PreparedEnd>;
  private settled = false;
  private waiters: Array<() => void> = [];

  /** `run` starts the parse, calling `onPart` with each part in order before it resolves. */
  constructor(run: (onPart: (part: PreparedPart) => void) => Promise<PreparedEnd>) {
    this.result = run((part) => {
      this.parts.push(part);
      this.notify();
    });
    // Observed through `next` and `end`; a caller that stops early must not leave it unhandled.
    this.result.then(
      () => this.settle(),
      () => this.settle(),
    );
  }

  /**
   * The consecutive pieces that arrived since the last call, merged into one part of at most
   * `max` pieces (a part is never cut: the first one is returned whole whatever its size);
   * waits for one when none has; null once every part is taken.
   */
  async next(max: number): Promise<PreparedPart | null> {
    while (!this.parts.length) {
      if (this.settled) {
        await this.result;
        return null;
      }
      await this.arrival();
    }
    const first = this.parts.shift()!;
    if (!this.parts.length || first.texts.length + this.parts[0]!.texts.length > max) return first;
    const merged: PreparedPart = {
      start: first.start,
      texts: [...first.texts],
      headings: [...first.headings],
      terms: [...first.terms],
      lengths: [...first.lengths],
    };
    while (this.parts.length && merged.texts.length + this.parts[0]!.texts.length <= max) {
      const p = this.parts.shift()!;
      merged.texts.push(...p.texts);
      merged.headings.push(...p.headings);
      merged.terms.push(...p.terms);
      merged.lengths.push(...p.lengths);
    }
    return merged;
  }

  /**
   * Whether `next` would return without waiting (a part has arrived, or the parse is over),
   * waiting at most `waitMs` for it. Never rejects: `next` gives the parse's error.
   */
  async ready(waitMs: number): Promise<boolean> {
    if (this.parts.length || this.settled) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), waitMs);
    });
    try {
      return await Promise.race([this.arrival().then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every remaining part, in order, then the end. */
  async all(): Promise<{ parts: PreparedPart[]; end: PreparedEnd }> {
    const parts: PreparedPart[] = [];
    for (let p = await this.next(Infinity); p; p = await this.next(Infinity)) parts.push(p);
    return { parts, end: await this.result };
  }

  /** The keywords and chunk count, once the parse is done. */
  end(): Promise<PreparedEnd> {
    return this.result;
  }

  private settle() {
    this.settled = true;
    this.notify();
  }

  /** Resolves at the next part or at the end of the parse. */
  private arrival(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify() {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
