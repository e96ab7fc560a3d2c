import { createHttpApp, type LoreConfig, mergedMetrics } from '@lore/kit';
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { Aggregator } from './aggregator.js';
import { catalogJson, mountCatalog } from './catalog-page.js';
import { type ConsoleDeps, mountConsole } from './console/index.js';
import type { AggregatorMetrics } from './metrics.js';
import type { Relay } from './relay.js';

export interface GatewayOptions {
  config: LoreConfig;
  aggregator: Aggregator;
  metrics: AggregatorMetrics;
  /** More registries to expose (in-process services'). */
  registries?: Registry[];
  ready: () => Promise<Record<string, string>>;
  /** Facts `/readyz` shows without deciding readiness (the services' degraded features). */
  details?: () => Promise<Record<string, string>>;
  /** The owner's console at `/console` (needs a way to verify keys; see console/). */
  console?: Omit<ConsoleDeps, 'backend' | 'catalog'>;
  /** Checks keys before a 2025-11-25 session is opened (see HttpAppOptions.verifyKey). */
  verifyKey?: (key: string) => Promise<boolean>;
  /** Relays tools/call to the owning service as it is (distributed mode; see relay.ts). */
  relay?: Relay;
}

/** The aggregator's HTTP face: `/mcp` (sessions for 2025 clients), health, metrics, the catalog page, the console. */
export function createGateway(opts: GatewayOptions): Hono {
  return createHttpApp({
    backend: opts.aggregator,
    config: opts.config,
    legacySessions: {},
    ...(opts.verifyKey ? { verifyKey: opts.verifyKey } : {}),
    ...(opts.relay ? { intercept: opts.relay.relay } : {}),
    onNotifier: (notify) => opts.aggregator.onToolsChanged(() => notify.toolsChanged()),
    metrics: {
      registry: {
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        metrics: async () => (await mergedMetrics([opts.metrics.registry, ...(opts.registries ?? [])])).body,
      },
    },
    ready: opts.ready,
    ...(opts.details ? { details: opts.details } : {}),
    extend: (app) => {
      mountCatalog(app, opts.aggregator);
      if (opts.console)
        mountConsole(app, {
          ...opts.console,
          backend: opts.aggregator,
          catalog: () => catalogJson(opts.aggregator),
        });
    },
  });
}
