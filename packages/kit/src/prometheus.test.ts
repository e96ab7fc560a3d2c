import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from './prometheus.js';

// Vitest runs each file in a process of its own: nothing else here has loaded prom-client.
const loaded = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('prom-client'));

describe('prometheus', () => {
  it("loads the four classes from their own files, not prom-client's entry", () => {
    const files = loaded().map((p) => p.slice(p.lastIndexOf('prom-client')));
    expect(files).toContain('prom-client/lib/counter.js');
    expect(files).not.toContain('prom-client/index.js');
    expect(files).not.toContain('prom-client/lib/cluster.js');
    expect(files).not.toContain('prom-client/lib/pushgateway.js');
  });

  it("are prom-client's own classes: a registry of them aggregates with prom-client's", async () => {
    const registry = new Registry();
    new Counter({ name: 'c_total', help: 'c', labelNames: ['k'], registers: [registry] }).inc({ k: 'a' });
    new Gauge({ name: 'g', help: 'g', registers: [registry] }).set(3);
    new Histogram({ name: 'h', help: 'h', buckets: [1], registers: [registry] }).observe(0.5);
    const prom = await import('prom-client');
    expect(registry).toBeInstanceOf(prom.Registry);
    const merged = prom.AggregatorRegistry.aggregate([await registry.getMetricsAsJSON()]);
    const text = await merged.metrics();
    expect(text).toMatch(/c_total\{k="a"\} 1/);
    expect(text).toMatch(/^g 3$/m);
    expect(text).toMatch(/h_bucket\{le="1"\} 1/);
  });
});
