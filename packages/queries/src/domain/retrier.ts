import type { Logger } from '@lore/kit';
import { settleInPool } from '@lore/kit';
import type { Intake } from './intake.js';
import { STEP_LEASE_MS } from './lifecycle.js';
import type { ReceivedRepository } from './received.js';

/** How often the node looks for copies whose step is due. */
export const RETRY_TICK_MS = 1000;
/** Copies taken per look. */
export const RETRY_BATCH = 64;
/** Looks per tick at most (a backlog drains at 1,024 copies a second). */
export const RETRY_BATCHES_PER_TICK = 16;

/**
 * Runs again the steps of received queries that could not run (or that a crash interrupted):
 * their retry times are in the database, so a restart or another replica picks them up. Each
 * due copy is claimed first, so two replicas never run the same attempt.
 */
export class Retrier {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly received: ReceivedRepository,
    private readonly intake: Intake,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly tickMs = RETRY_TICK_MS,
  ) {}

  start(): { close(): Promise<void> } {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.runDue()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err: (err as Error).message }, 'retrying query steps failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.tickMs);
        });
    };
    this.timer = setTimeout(tick, this.tickMs);
    return {
      close: async () => {
        this.stopped = true;
        clearTimeout(this.timer);
        await this.running;
      },
    };
  }

  /**
   * One pass over what is due; returns how many copies it advanced. Bounded: at most
   * `RETRY_BATCHES_PER_TICK` batches, and none after a batch this process could claim nothing
   * of, so copies that fall due again at once (a step failing straight away) wait for the next
   * tick instead of spinning the database.
   */
  async runDue(): Promise<number> {
    let done = 0;
    for (let batch = 0; batch < RETRY_BATCHES_PER_TICK; batch++) {
      const due = await this.received.due(this.now(), RETRY_BATCH);
      if (!due.length || this.stopped) return done;
      const mine = [];
      for (const row of due) if (await this.received.claim(row, this.now() + STEP_LEASE_MS)) mine.push(row);
      await settleInPool(mine, RETRY_BATCH, async (row) => {
        await this.intake.advance(row);
      });
      done += mine.length;
      if (due.length < RETRY_BATCH || !mine.length) return done;
    }
    return done;
  }
}
