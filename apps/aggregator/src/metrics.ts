import { Counter, Gauge, Histogram, Registry } from '@lore/kit';

/** Per-upstream and per-tool call figures, and each upstream's health. */
export class AggregatorMetrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: 'lore_aggregator_calls_total',
    help: 'Forwarded tool calls by upstream, tool and outcome.',
    labelNames: ['upstream', 'tool', 'outcome'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'lore_aggregator_call_duration_seconds',
    help: 'Latency of forwarded tool calls, aggregator included.',
    labelNames: ['upstream', 'tool'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly up = new Gauge({
    name: 'lore_upstream_up',
    help: '1 when the upstream passes its health checks.',
    labelNames: ['upstream'],
    registers: [this.registry],
  });

  /** Each (upstream, tool, outcome)'s series, looked up once. */
  private readonly series = new Map<
    string,
    { calls: { inc(): void }; latency: { observe(v: number): void } }
  >();

  record(upstream: string, tool: string, outcome: string, seconds: number) {
    const key = `${upstream}|${tool}|${outcome}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        calls: this.calls.labels({ upstream, tool, outcome }),
        latency: this.latency.labels({ upstream, tool }),
      };
      this.series.set(key, s);
    }
    s.calls.inc();
    s.latency.observe(seconds);
  }

  setUp(upstream: string, isUp: boolean) {
    this.up.set({ upstream }, isUp ? 1 : 0);
  }
}
