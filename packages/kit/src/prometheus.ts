import { createRequire } from 'node:module';
import type * as Prometheus from 'prom-client';

/**
 * The four prom-client classes Lore uses, required from their own files. prom-client's entry
 * also builds its default metrics, Pushgateway (http, https, tls) and AggregatorRegistry, which
 * loads Node's `cluster` (and with it child_process and dgram): about 4 MiB of a process that
 * never scrapes a cluster nor pushes. The types are prom-client's own; `mergedMetrics` loads
 * the aggregating registry when the first scrape needs it.
 */
const require = createRequire(import.meta.url);

export const Registry: typeof Prometheus.Registry = require('prom-client/lib/registry');
export type Registry = Prometheus.Registry;
export const Counter: typeof Prometheus.Counter = require('prom-client/lib/counter');
export type Counter<T extends string = string> = Prometheus.Counter<T>;
export const Gauge: typeof Prometheus.Gauge = require('prom-client/lib/gauge');
export type Gauge<T extends string = string> = Prometheus.Gauge<T>;
export const Histogram: typeof Prometheus.Histogram = require('prom-client/lib/histogram');
export type Histogram<T extends string = string> = Prometheus.Histogram<T>;
