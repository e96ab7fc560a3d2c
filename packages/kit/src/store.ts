import { databaseFor } from './config.js';
import { type Database, openDatabase } from './db/index.js';
import { createLogger, type Logger } from './logger.js';
import { EnvelopeSigner } from './network/signing.js';
import { Outbox } from './outbox.js';
import type { ServiceDeps } from './service.js';

export interface ServiceStore<S extends Record<string, unknown>> {
  db: Database<S>;
  outbox: Outbox;
  log: Logger;
}

/** A service's database (migrated) and its outbox, named after the service. */
export async function openServiceStore<S extends Record<string, unknown>>(
  deps: ServiceDeps,
  service: string,
  schema: S,
  migrationsFolder?: string,
): Promise<ServiceStore<S>> {
  const log = (deps.log ?? createLogger({ name: 'lore', level: deps.config.LORE_LOG_LEVEL })).child({
    service,
  });
  const db = await openDatabase({
    ...databaseFor(deps.config, service),
    schema,
    ...(migrationsFolder ? { migrationsFolder } : {}),
  });
  const outbox = new Outbox(
    db,
    deps.bus,
    { node: deps.nodeId, service },
    log,
    deps.node ? new EnvelopeSigner(deps.node) : undefined,
  );
  return { db, outbox, log };
}
