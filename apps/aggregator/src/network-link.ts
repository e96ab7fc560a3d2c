/**
 * A node's link to a network of several operators (packages/kit/src/network/federation.ts), as
 * Lore runs it: in the all-in-one node, or alone (`lore network link`) beside services that each
 * run in their own process. Exactly one link per node is the plan; a second one (a rolling
 * update) is harmless: both read the same durable consumer and share inbound requests.
 */
import {
  type CarriedEvent,
  ConfigError,
  createDirectory,
  directoryTrust,
  type Logger,
  type LoreConfig,
  loadNodeIdentity,
  type NetworkDirectory,
  NetworkLink,
  type NetworkTraffic,
  type NodeIdentity,
  stopWithin,
} from '@lore/kit';
import { createBus, type EventBus, natsAccess } from '@lore/kit/bus';
import { AnswerShared, AnswerWithheld, QuestionAsked } from '@lore/schema/queries';
import { Hono } from 'hono';
import { readConfirmedKeys } from './network-cli.js';

const text = (v: unknown, field: string): string => {
  if (typeof v !== 'string' || !v) throw new Error(`${field}: not a string`);
  return v;
};
const record = (v: unknown, field: string): Record<string, unknown> => {
  if (!v || typeof v !== 'object') throw new Error(`${field}: not an object`);
  return v as Record<string, unknown>;
};

/** An answer (or a refusal to answer) speaks for the agent who was asked and goes to the asker. */
const answer = (subject: string): CarriedEvent => ({
  subject,
  kind: 'answer',
  route: (payload) => {
    const p = record(payload, 'payload');
    return {
      sender: { id: text(p.recipientId, 'recipientId') },
      recipients: [{ id: text(p.askerId, 'askerId') }],
    };
  },
});

/**
 * What crosses operators: the queries service's questions (to the nodes hosting their
 * recipients) and its answers and refusals (back to the asking node). Read with one consumer
 * over `lore.queries.>`; the service's other events stay on the node's own stream.
 */
export const QUERIES_TRAFFIC: NetworkTraffic = {
  outbox: { consumer: 'queries-network-outbox', filter: 'lore.queries.>' },
  events: [
    {
      subject: QuestionAsked.subject,
      kind: 'ask',
      route: (payload) => {
        const p = record(payload, 'payload');
        const asker = record(p.asker, 'asker');
        if (!Array.isArray(p.recipients)) throw new Error('recipients: not a list');
        return {
          sender: { id: text(asker.id, 'asker.id'), node: text(asker.node, 'asker.node') },
          recipients: p.recipients.map((r, i) => {
            const rec = record(r, `recipients[${i}]`);
            return { id: text(rec.id, `recipients[${i}].id`), node: text(rec.node, `recipients[${i}].node`) };
          }),
          ...(typeof p.expiresAt === 'string' ? { expiresAt: p.expiresAt } : {}),
        };
      },
    },
    answer(AnswerShared.subject),
    answer(AnswerWithheld.subject),
  ],
};

/** The link's settings from the configuration; a missing or contradictory one is named. */
export function networkLinkSettings(config: LoreConfig) {
  if (!config.LORE_NETWORK_NATS_URL)
    throw new ConfigError(['LORE_NETWORK_NATS_URL: required for the network link']);
  if (!config.NATS_URL)
    throw new ConfigError(['NATS_URL: the network link needs the node’s own NATS too (NATS_URL)']);
  if (!config.LORE_NETWORK_NATS_PASSWORD)
    throw new ConfigError([
      'LORE_NETWORK_NATS_PASSWORD: the password of the network user (pnpm nats:leaf renders it)',
    ]);
  const announceEveryMs = config.LORE_NETWORK_ANNOUNCE_SECONDS * 1000;
  const ttl = config.LORE_NETWORK_DIRECTORY_TTL_SECONDS;
  if (ttl !== undefined && ttl * 1000 <= 2 * announceEveryMs)
    throw new ConfigError([
      `LORE_NETWORK_DIRECTORY_TTL_SECONDS: ${ttl} s must exceed two announce periods (LORE_NETWORK_ANNOUNCE_SECONDS ${config.LORE_NETWORK_ANNOUNCE_SECONDS} s), or every node would leave between two announcements`,
    ]);
  return {
    url: config.LORE_NETWORK_NATS_URL,
    user: config.LORE_NETWORK_NATS_USER,
    password: config.LORE_NETWORK_NATS_PASSWORD,
    announceEveryMs,
    ...(ttl !== undefined ? { directoryTtlMs: ttl * 1000 } : {}),
    peerRate: { perMinute: config.LORE_NETWORK_PEER_RATE, burst: config.LORE_NETWORK_PEER_BURST },
    maxBytes: config.LORE_NETWORK_MAX_BYTES,
    confirmedKeys: () => readConfirmedKeys(config.LORE_DATA_DIR),
  };
}

/** This node's link, over the node's bus and directory. */
export async function startNetworkLink(
  config: LoreConfig,
  deps: { bus: EventBus; directory: NetworkDirectory; node: NodeIdentity; log: Logger },
): Promise<NetworkLink> {
  const settings = networkLinkSettings(config);
  if (deps.bus.kind !== 'nats')
    throw new ConfigError(['NATS_URL: the network link needs the node’s own NATS too (NATS_URL)']);
  return NetworkLink.start({ ...deps, ...settings, traffic: QUERIES_TRAFFIC });
}

export interface StandaloneLink {
  link: NetworkLink;
  /** `/healthz` (the process runs) and `/readyz` (its NATS connections are up). */
  app: Hono;
  close(): Promise<void>;
}

/**
 * `lore network link`: the link as its own process, for the split topology (`pnpm dev`, the
 * packed servers, Kubernetes' `network` Deployment). It connects to the node's NATS as its own
 * user (`NATS_USER=link`), and to the account the leaf connection binds as `network`.
 */
export async function startStandaloneLink(config: LoreConfig, log: Logger): Promise<StandaloneLink> {
  networkLinkSettings(config);
  const node = loadNodeIdentity(config);
  const bus = await createBus({
    natsUrl: config.NATS_URL,
    ...natsAccess(config, (m) => log.warn(m)),
    name: `lore-network-link-${node.id}`,
    replicas: config.LORE_NATS_REPLICAS,
    timeoutScale: config.LORE_BUS_TIMEOUT_SCALE,
    onError: (err, event, consumer) =>
      log.warn(
        { err: (err as Error).message, subject: event?.subject, consumer },
        'network link send failed',
      ),
  });
  let directory: NetworkDirectory | undefined;
  let link: NetworkLink | undefined;
  try {
    directory = await createDirectory(bus, directoryTrust(config, log, node));
    link = await startNetworkLink(config, { bus, directory, node, log });
  } catch (err) {
    await directory?.close();
    await bus.close();
    throw err;
  }
  const started = link;
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const up = await bus.ping().then(
      () => true,
      () => false,
    );
    return c.json(
      {
        status: up ? 'ok' : 'not ready',
        node: node.id,
        accepted: started.accepted,
        refusals: started.refusals,
      },
      up ? 200 : 503,
    );
  });
  log.info({ node: node.id }, 'network link started');
  return {
    link: started,
    app,
    async close() {
      await stopWithin(async () => {
        await started.close();
        await directory?.close();
      }, log);
      await bus.close();
    },
  };
}
