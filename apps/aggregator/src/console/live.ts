import type { EventBus, Subscription } from '@lore/kit/bus';
import type { EventEnvelope } from '@lore/schema';

/**
 * Hints that an inbox may have changed. On the bus, every question, answer and decision is one;
 * the inbox itself is always re-read through the tool, so a hint is never trusted for content.
 */
export class LiveHints {
  private readonly listeners = new Set<(event?: EventEnvelope) => void>();
  private subs: Subscription[] = [];
  private health: NodeJS.Timeout | undefined;
  /**
   * Whether hints are arriving: true while this process listens on a bus it can reach. When it is
   * false (no bus at all, or the bus is down) inbox pages fall back to re-reading on a timer.
   */
  live = false;

  /** The bus subjects that change an inbox: a question asked, a query decided, an answer shared or withheld. */
  static readonly SUBJECT = 'lore.queries.>';

  async listen(bus: EventBus | undefined, healthMs = POLL_MS): Promise<void> {
    if (!bus) return;
    this.subs.push(await bus.listen(LiveHints.SUBJECT, (e) => this.fire(e)));
    this.live = true;
    // A listener hears nothing while the bus is away: watch it, and after it is back re-read once
    // (what happened meanwhile was not heard).
    this.health = setInterval(() => {
      bus.ping().then(
        () => {
          if (!this.live) {
            this.live = true;
            this.fire();
          }
        },
        () => {
          this.live = false;
        },
      );
    }, healthMs);
    this.health.unref();
  }

  on(listener: (event?: EventEnvelope) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every open inbox; without an event (the bus is back), every one of them re-reads. */
  fire(event?: EventEnvelope): void {
    for (const l of this.listeners) l(event);
  }

  async close(): Promise<void> {
    clearInterval(this.health);
    this.live = false;
    for (const s of this.subs.splice(0)) await s.close().catch(() => {});
  }
}

/**
 * Whether an event may change this agent's inbox: one that names its recipients and not this
 * agent does not. An event that names none is taken to concern everyone.
 */
export function concerns(event: EventEnvelope | undefined, agentId: string | undefined): boolean {
  if (!event || !agentId) return true;
  const p = event.payload as { recipients?: Array<{ id?: unknown }>; recipientId?: unknown } | null;
  if (!p || typeof p !== 'object') return true;
  if (Array.isArray(p.recipients)) return p.recipients.some((r) => r?.id === agentId);
  if (typeof p.recipientId === 'string') return p.recipientId === agentId;
  return true;
}

/** How long after a hint to look again: a recipient's draft is written a moment after the question. */
const AFTER_HINT_MS = [150, 1000, 3000];
/** Without hints (no bus here, or the bus is down), the inbox is re-read this often. */
export const POLL_MS = 5000;

/**
 * Watches one agent's inbox while its page is open: calls `read` soon after every hint (and at the
 * poll interval only while hints are not live), and `changed` whenever what it returns differs
 * from the last time.
 */
export function watchInbox(opts: {
  hints: LiveHints;
  read: () => Promise<string>;
  changed: (fingerprint: string) => Promise<void>;
  signal: AbortSignal;
  pollMs?: number;
  /** The inbox's agent: events addressed to others only are not a reason to re-read. */
  agentId?: string;
}): Promise<void> {
  let last: string | undefined;
  let timers: NodeJS.Timeout[] = [];
  let running = Promise.resolve();
  const check = () => {
    running = running.then(async () => {
      if (opts.signal.aborted) return;
      try {
        const now = await opts.read();
        if (last !== undefined && now !== last) await opts.changed(now);
        last = now;
      } catch {
        // A failed read (a service restarting) is retried at the next tick.
      }
    });
  };
  const off = opts.hints.on((event) => {
    if (!concerns(event, opts.agentId)) return;
    for (const ms of AFTER_HINT_MS) timers.push(setTimeout(check, ms));
    timers = timers.slice(-12);
  });
  check();
  const poll = setInterval(() => {
    if (!opts.hints.live) check();
  }, opts.pollMs ?? POLL_MS);
  return new Promise((resolve) => {
    const stop = () => {
      off();
      clearInterval(poll);
      for (const t of timers) clearTimeout(t);
      resolve();
    };
    if (opts.signal.aborted) stop();
    else opts.signal.addEventListener('abort', stop, { once: true });
  });
}
