import { statsRpc } from '@lore/schema/stats';
import { answer } from './bus/rpc.js';
import type { EventBus, Subscription } from './bus/types.js';

const DAY_MS = 86_400_000;

/** Midnight UTC of the day `ms` falls in: what every service calls "today". */
export const utcDayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/**
 * Calls made today, from a counter that only grows (the service's Prometheus call counter).
 * The counter's value is remembered at each UTC midnight; a process started today counts all
 * of its calls.
 */
export class DailyCalls {
  private day: number;
  private base = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly total: () => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {
    this.day = utcDayStart(this.now());
  }

  start(): void {
    const wait = this.day + DAY_MS - this.now() + 50;
    this.timer = setTimeout(
      () => {
        void this.roll().finally(() => this.start());
      },
      Math.max(1000, wait),
    );
    this.timer.unref?.();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  async today(): Promise<number> {
    await this.roll();
    return Math.max(0, (await this.total()) - this.base);
  }

  private async roll(): Promise<void> {
    const day = utcDayStart(this.now());
    if (day === this.day) return;
    this.base = await this.total();
    this.day = day;
  }
}

export interface StatsResponderOptions {
  /** The service's name: it answers `statsRpc(service)` (`@lore/schema/stats`). */
  service: string;
  /** The service's own figures since `since` (epoch ms of the start of today). */
  figures: (since: number) => Promise<Record<string, unknown>>;
  /** Every tool call the service answered since it started (`service.metrics.totalCalls()`). */
  totalCalls: () => Promise<number>;
  now?: () => number;
}

/**
 * Answers `statsRpc(service)` for platform_stats: the service's figures plus `callsToday`.
 * Returned as a handler for `createService({ handlers })`.
 */
export function statsResponder(opts: StatsResponderOptions) {
  return async (bus: EventBus): Promise<Subscription> => {
    const calls = new DailyCalls(opts.totalCalls, opts.now);
    calls.start();
    const sub = await answer(bus, statsRpc(opts.service), async ({ since }) => {
      const sinceMs = Date.parse(since);
      const figures = await opts.figures(
        Number.isFinite(sinceMs) ? sinceMs : utcDayStart((opts.now ?? Date.now)()),
      );
      return { service: opts.service, figures: { ...figures, callsToday: await calls.today() } };
    });
    return {
      async close() {
        calls.stop();
        await sub.close();
      },
    };
  };
}
