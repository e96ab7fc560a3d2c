/**
 * Timeouts for many calls on few timers. A call's timeout is a timer of its own when set with
 * `setTimeout`: an object, a place in Node's timer list and, with async context tracking on (the
 * kit's call context), an init hook, for every call, though almost every call ends long before
 * it. Here calls given the same length of time wait in one queue, in the order they started, so
 * their deadlines come in order: one timer, armed for the oldest call still running, serves them
 * all, and a call that ends is dropped from the front of its queue as soon as the calls before it
 * have ended too.
 */
export class Deadlines {
  private readonly queues = new Map<number, Queue>();

  /** Calls `fire` after `ms` unless the returned `cancel` is called first. */
  after(ms: number, fire: () => void): () => void {
    let queue = this.queues.get(ms);
    if (!queue) {
      queue = new Queue(ms, () => this.queues.delete(ms));
      this.queues.set(ms, queue);
    }
    return queue.add(fire);
  }

  /** Calls still waiting for their deadline. */
  get pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.pending;
    return n;
  }
}

interface Entry {
  deadline: number;
  fire: (() => void) | undefined;
}

class Queue {
  private entries: Entry[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly empty: () => void,
  ) {}

  get pending(): number {
    let n = 0;
    for (let i = this.head; i < this.entries.length; i++) if (this.entries[i]!.fire) n++;
    return n;
  }

  add(fire: () => void): () => void {
    const entry: Entry = { deadline: performance.now() + this.ms, fire };
    this.entries.push(entry);
    if (!this.timer) this.arm(this.ms);
    return () => {
      if (!entry.fire) return;
      entry.fire = undefined;
      this.drop();
    };
  }

  /** Drops the ended calls at the front; with none left, the queue goes. */
  private drop(): void {
    while (this.head < this.entries.length && !this.entries[this.head]!.fire) this.head++;
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
      clearTimeout(this.timer);
      this.timer = undefined;
      this.empty();
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.sweep(), Math.max(1, Math.ceil(ms)));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      if (entry.fire && entry.deadline > now) break;
      this.head++;
      const fire = entry.fire;
      entry.fire = undefined;
      fire?.();
    }
    if (this.head < this.entries.length) this.arm(this.entries[this.head]!.deadline - now);
    else this.drop();
  }
}

/** The process's deadlines: in-process calls and relayed attempts. */
export const deadlines = new Deadlines();
