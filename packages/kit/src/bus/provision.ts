/**
 * What Lore keeps on JetStream, and who sets it up. The event stream and the KV buckets are
 * created and reconfigured by the operator (`lore jetstream provision`, run as the `ops` user by
 * `pnpm dev`, the test harness and the Kubernetes Job); a service only checks at start that the
 * stream is as expected and refuses to run when it is not. No service login may update, seal,
 * purge or roll up the stream (infra/nats/permissions.ts).
 */
import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  StorageType,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { type NatsConnection, nanos } from '@nats-io/transport-node';

import {
  CONSOLE_SESSION_MAX_AGE_MS,
  CONSOLE_SESSIONS_BUCKET,
  DIRECTORY_BUCKETS,
  DUPLICATE_WINDOW_MS,
  EVENTS_PREFIX,
  EVENTS_STREAM,
  RATE_LIMIT_BUCKET,
  RATE_LIMIT_TTL_MS,
} from './jetstream-names.js';

export * from './jetstream-names.js';

export interface BucketSpec {
  name: string;
  /** Entries expire this long after they were written. */
  ttlMs?: number;
}

/** Every bucket Lore uses, with `prefix` before each name (tests isolate themselves with one). */
export function loreBuckets(prefix = ''): BucketSpec[] {
  return [
    ...DIRECTORY_BUCKETS.map((b) => ({ name: `${prefix}${b}` })),
    { name: `${prefix}${RATE_LIMIT_BUCKET}`, ttlMs: RATE_LIMIT_TTL_MS },
    { name: `${prefix}${CONSOLE_SESSIONS_BUCKET}`, ttlMs: CONSOLE_SESSION_MAX_AGE_MS },
  ];
}

export interface EventStreamSpec {
  stream?: string;
  subjectPrefix?: string;
  replicas?: number;
  duplicateWindowMs?: number;
}

/**
 * The event stream's settings. Message deletes and purges are refused by the server for every
 * user, roll-up headers are refused (so no publisher can replace the stream's history with one
 * message), and neither setting can be turned back by an update.
 */
export function eventStreamConfig(spec: EventStreamSpec = {}): Partial<StreamConfig> & { name: string } {
  return {
    name: spec.stream ?? EVENTS_STREAM,
    subjects: [`${spec.subjectPrefix ?? EVENTS_PREFIX}.>`],
    storage: StorageType.File,
    num_replicas: spec.replicas ?? 1,
    duplicate_window: nanos(spec.duplicateWindowMs ?? DUPLICATE_WINDOW_MS),
    deny_delete: true,
    deny_purge: true,
    allow_rollup_hdrs: false,
  };
}

/**
 * How an existing event stream differs from what Lore needs, as sentences (empty when it is as
 * expected). `unsafe` differences let someone rewrite, drop, copy or inject events; the others
 * (replicas, the duplicate window) only change how well the stream keeps them.
 */
export function eventStreamDifferences(
  actual: StreamConfig,
  spec: EventStreamSpec = {},
): { unsafe: string[]; tuning: string[] } {
  const want = eventStreamConfig(spec);
  const unsafe: string[] = [];
  const tuning: string[] = [];
  const subjects = actual.subjects ?? [];
  if (subjects.length !== 1 || subjects[0] !== want.subjects![0])
    unsafe.push(`it captures ${JSON.stringify(subjects)} instead of ${JSON.stringify(want.subjects)}`);
  if (actual.sealed) unsafe.push('it is sealed (nothing can be published to it again)');
  if (!actual.deny_delete) unsafe.push('it allows deleting messages (deny_delete is off)');
  if (!actual.deny_purge) unsafe.push('it allows purging (deny_purge is off)');
  if (actual.allow_rollup_hdrs) unsafe.push('it accepts roll-up headers (allow_rollup_hdrs is on)');
  if (actual.mirror) unsafe.push(`it mirrors the stream ${actual.mirror.name}`);
  if (actual.sources?.length)
    unsafe.push(`it takes messages from other streams (${actual.sources.map((s) => s.name).join(', ')})`);
  if (actual.republish) unsafe.push(`it republishes its messages to ${actual.republish.dest}`);
  if (actual.max_msgs !== undefined && actual.max_msgs > 0)
    unsafe.push(`it keeps at most ${actual.max_msgs} messages`);
  if (actual.max_bytes !== undefined && actual.max_bytes > 0)
    unsafe.push(`it keeps at most ${actual.max_bytes} bytes`);
  if (actual.max_age) unsafe.push(`it drops messages after ${Math.round(actual.max_age / 1e9)} s`);
  if ((actual.num_replicas || 1) !== want.num_replicas)
    tuning.push(`it has ${actual.num_replicas || 1} replicas instead of ${want.num_replicas}`);
  if (actual.duplicate_window !== want.duplicate_window)
    tuning.push(`its duplicate window is ${actual.duplicate_window} ns instead of ${want.duplicate_window}`);
  return { unsafe, tuning };
}

/** How to fix a stream or bucket the service may not touch. */
export const PROVISION_HINT =
  'provision JetStream as the operator: `lore jetstream provision` with the ops user (NATS_USER=ops), as `pnpm dev` and the Kubernetes Job jetstream-provision do';

/** The event stream is missing, or not as Lore needs it, and this login may not fix it. */
export class StreamSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamSetupError';
  }
}

/** Whether a JetStream API call failed because this login may not make it. */
export function isPermissionDenied(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const text = `${(e as Error).name ?? ''} ${(e as Error).message ?? ''}`;
    if (/permission/i.test(text)) return true;
  }
  return false;
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw err;
  }
}

/**
 * A service's check of the event stream at start. A missing stream is created when this login
 * may (an open NATS, or the operator's); a stream that lets events be rewritten, dropped, copied
 * or injected is brought to Lore's settings when this login may, and otherwise the service
 * refuses to run. Differences in replicas or the duplicate window are fixed when allowed and
 * reported through `warn` otherwise. Never loosens anything.
 */
export async function checkEventStream(
  jsm: JetStreamManager,
  spec: EventStreamSpec,
  warn: (message: string) => void = () => {},
  /** How long to wait for the operator to provision a missing stream this login may not create. */
  waitMs = 0,
): Promise<void> {
  const want = eventStreamConfig(spec);
  const deadline = Date.now() + waitMs;
  let info = await streamInfo(jsm, want.name);
  let warned = false;
  while (!info) {
    try {
      await jsm.streams.add(want);
      return;
    } catch (err) {
      if (!isPermissionDenied(err)) throw err;
      if (Date.now() >= deadline)
        throw new StreamSetupError(
          `the JetStream stream ${want.name} does not exist and this NATS login may not create it: ${PROVISION_HINT}`,
        );
      if (!warned)
        warn(
          `waiting up to ${Math.round(waitMs / 1000)} s for the JetStream stream ${want.name}: ${PROVISION_HINT}`,
        );
      warned = true;
      await new Promise((r) => setTimeout(r, 1000));
      info = await streamInfo(jsm, want.name);
    }
  }
  const { unsafe, tuning } = eventStreamDifferences(info.config, spec);
  if (!unsafe.length && !tuning.length) return;
  if (info.config.sealed)
    throw new StreamSetupError(
      `the JetStream stream ${want.name} is sealed and can take no more events: back it up (lore jetstream backup), delete it as the ops user and provision it again`,
    );
  try {
    await jsm.streams.update(want.name, { ...info.config, ...want, sources: [], republish: undefined });
  } catch (err) {
    if (!isPermissionDenied(err) && !unsafe.length) throw err;
    if (unsafe.length)
      throw new StreamSetupError(
        `the JetStream stream ${want.name} is not as Lore needs it: ${unsafe.join('; ')}. ${
          isPermissionDenied(err)
            ? `This NATS login may not change it: ${PROVISION_HINT}`
            : `Updating it failed: ${(err as Error).message}`
        }`,
      );
    warn(`the JetStream stream ${want.name}: ${tuning.join('; ')} (${PROVISION_HINT})`);
  }
}

/** Opens a Lore KV bucket, creating it only where this login may. */
export async function openBucket(
  nc: NatsConnection,
  name: string,
  options: { ttlMs?: number; replicas?: number } = {},
) {
  const { Kvm } = await import('@nats-io/kv');
  try {
    // Reads the bucket's stream first and creates it only when it is missing.
    return await new Kvm(nc).create(name, {
      history: 1,
      replicas: options.replicas ?? 1,
      ...(options.ttlMs ? { ttl: options.ttlMs } : {}),
    });
  } catch (err) {
    if (!isPermissionDenied(err)) throw err;
    throw new StreamSetupError(
      `the KV bucket ${name} does not exist and this NATS login may not create it: ${PROVISION_HINT}`,
    );
  }
}

export interface ProvisionOptions extends EventStreamSpec {
  /** Put before every bucket's name (tests). */
  bucketPrefix?: string;
}

/**
 * Creates Lore's event stream and buckets, or brings existing ones to Lore's settings: the
 * operator's step, which needs a login allowed to create and update streams (`ops`). Returns
 * what it did, a line per stream.
 */
export async function provisionJetStream(
  nc: NatsConnection,
  options: ProvisionOptions = {},
): Promise<string[]> {
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const jsm = await jetstreamManager(nc);
  const done: string[] = [];
  const want = eventStreamConfig(options);
  const info = await streamInfo(jsm, want.name);
  if (!info) {
    await jsm.streams.add(want);
    done.push(`${want.name}: created`);
  } else {
    if (info.config.sealed)
      throw new StreamSetupError(
        `the JetStream stream ${want.name} is sealed: back it up (lore jetstream backup), delete it and provision again`,
      );
    const { unsafe, tuning } = eventStreamDifferences(info.config, options);
    if (unsafe.length || tuning.length) {
      await jsm.streams.update(want.name, { ...info.config, ...want, sources: [], republish: undefined });
      done.push(`${want.name}: updated (${[...unsafe, ...tuning].join('; ')})`);
    } else done.push(`${want.name}: as expected`);
  }
  const replicas = options.replicas ?? 1;
  for (const bucket of loreBuckets(options.bucketPrefix)) {
    const stream = `KV_${bucket.name}`;
    const existing = await streamInfo(jsm, stream);
    if (!existing) {
      await openBucket(nc, bucket.name, { replicas, ...(bucket.ttlMs ? { ttlMs: bucket.ttlMs } : {}) });
      done.push(`${stream}: created`);
      continue;
    }
    const changes: Partial<StreamConfig> = {};
    if ((existing.config.num_replicas || 1) !== replicas) changes.num_replicas = replicas;
    if (existing.config.sealed) throw new StreamSetupError(`the KV bucket ${bucket.name} is sealed`);
    if (bucket.ttlMs && existing.config.max_age !== nanos(bucket.ttlMs))
      changes.max_age = nanos(bucket.ttlMs);
    if (existing.config.mirror || existing.config.sources?.length || existing.config.republish) {
      changes.sources = [];
      changes.republish = undefined;
    }
    if (Object.keys(changes).length) {
      await jsm.streams.update(stream, { ...existing.config, ...changes });
      done.push(`${stream}: updated`);
    } else done.push(`${stream}: as expected`);
  }
  return done;
}
