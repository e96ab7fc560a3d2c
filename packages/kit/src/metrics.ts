import { Counter, Histogram, Registry } from './prometheus.js';

/** Per-service Prometheus metrics: calls, errors and latency per tool. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly calls: Counter<'service' | 'tool' | 'code'>;
  readonly latency: Histogram<'service' | 'tool'>;
  /** Envelopes from other nodes refused (bad signature, sender not hosted by the signer). */
  readonly droppedEnvelopes: Counter<'service' | 'reason'>;
  /** Event deliveries this process handled, by durable consumer and outcome (ok, failed). */
  readonly events: Counter<'service' | 'consumer' | 'result'>;

  constructor(readonly service: string) {
    this.calls = new Counter({
      name: 'lore_tool_calls_total',
      help: 'Tool calls by tool and result code (200 for success).',
      labelNames: ['service', 'tool', 'code'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'lore_tool_duration_seconds',
      help: 'Tool call latency.',
      labelNames: ['service', 'tool'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.droppedEnvelopes = new Counter({
      name: 'lore_envelopes_dropped_total',
      help: 'Envelopes from other nodes that were refused, by reason.',
      labelNames: ['service', 'reason'],
      registers: [this.registry],
    });
    this.events = new Counter({
      name: 'lore_events_handled_total',
      help: 'Event deliveries handled by this process, by durable consumer and result (ok or failed).',
      labelNames: ['service', 'consumer', 'result'],
      registers: [this.registry],
    });
  }

  /** The series of each (tool, code), looked up once: a call then costs an increment and an observation. */
  private readonly series = new Map<
    string,
    { calls: { inc(): void }; latency: { observe(v: number): void } }
  >();

  record(tool: string, code: number, seconds: number) {
    const key = `${tool}|${code}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        calls: this.calls.labels({ service: this.service, tool, code: String(code) }),
        latency: this.latency.labels({ service: this.service, tool }),
      };
      this.series.set(key, s);
    }
    s.calls.inc();
    s.latency.observe(seconds);
  }

  /** Calls since start, for platform statistics. */
  async totalCalls(): Promise<number> {
    const m = await this.calls.get();
    return m.values.reduce((n, v) => n + v.value, 0);
  }
}

/** One text exposition from several registries (the all-in-one process). */
export async function mergedMetrics(registries: Registry[]): Promise<{ contentType: string; body: string }> {
  // Every service registers the same metric names (with its own `service` label): Registry.merge
  // refuses duplicate names, aggregate() merges their series.
  const { AggregatorRegistry } = await import('prom-client');
  const merged = AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON())));
  return { contentType: merged.contentType, body: await merged.metrics() };
}
