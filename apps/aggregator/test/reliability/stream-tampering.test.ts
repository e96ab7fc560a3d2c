/**
 * Reconfiguring Lore's event stream from a login that is not the operator's: a real
 * nats-server with the shipped users and permissions (infra/nats), the stream and buckets
 * provisioned by `ops` as a deployment does, and every service login, `aggregator` and `node`
 * trying each way JetStream offers to rewrite, drop, copy or read around the stream. Every
 * attempt is expected to fail, and the stream must be exactly as provisioned afterwards; the
 * figure reported is how many attempts got through (0).
 */
import { join } from 'node:path';
import {
  eventStreamConfig,
  eventStreamDifferences,
  NatsBus,
  openBucket,
  StreamSetupError,
} from '@lore/kit/nats';
import { freePort, NatsAuthFixture, NatsServerProcess, provisionAsOps, tempDir } from '@lore/kit/testing';
import { AckPolicy, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS_SERVICES } from '../../../../infra/nats/permissions.js';

const NODE = 'tamper-test';
const STREAM = 'LORE_EVENTS';
const LOGINS = [...NATS_SERVICES, 'aggregator', 'link', 'node'] as const;

describe('the event stream against every login that is not the operator', () => {
  const dir = tempDir('lore-tamper-');
  const auth = new NatsAuthFixture({ nodes: [NODE], dir: dir.path });
  let nats: NatsServerProcess;
  let ops: NatsConnection;
  let opsJsm: JetStreamManager;
  const conns: NatsConnection[] = [];
  const gotThrough: string[] = [];
  const attempts: string[] = [];
  /** Events stored before the attacks: a purge, delete or roll-up would lower it. */
  let stored = 0;

  const as = async (user: string) => {
    const nc = await connect({ servers: nats.url, ...auth.client(user), maxReconnectAttempts: 0 });
    conns.push(nc);
    return nc;
  };
  const refused = async (what: string, attempt: () => Promise<unknown>) => {
    attempts.push(what);
    try {
      await attempt();
      gotThrough.push(what);
    } catch {
      // refused, as it should be
    }
  };

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable())
      throw new Error('nats-server is required for the tampering tests');
    // start() provisions as ops (the harness does what `lore jetstream provision` does).
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
    await nats.start();
    ops = await as('ops');
    opsJsm = await jetstreamManager(ops);
    // A few events of several services, as a running node leaves them.
    for (const service of ['users', 'knowledge', 'showcase'] as const) {
      const js = jetstream(await as(service));
      for (let i = 0; i < 10; i++) await js.publish(`lore.${service}.probe.${i}`, JSON.stringify({ i }));
    }
    stored = (await opsJsm.streams.info(STREAM)).state.messages;
  }, 60_000);

  afterAll(async () => {
    console.info(
      `stream tampering: ${gotThrough.length} of ${attempts.length} attempts got through${gotThrough.length ? `: ${gotThrough.join('; ')}` : ''}`,
    );
    for (const c of conns) await c.close().catch(() => {});
    await nats?.kill();
    dir.cleanup();
  });

  it('is provisioned as Lore needs it: no deletes, no purges, no roll-ups', async () => {
    const { config } = await opsJsm.streams.info(STREAM);
    expect(eventStreamDifferences(config)).toEqual({ unsafe: [], tuning: [] });
    expect(config).toMatchObject({
      deny_delete: true,
      deny_purge: true,
      allow_rollup_hdrs: false,
      sealed: false,
    });
  });

  for (const login of LOGINS) {
    it(`refuses every reconfiguration from the ${login} login`, async () => {
      const nc = await as(login);
      const jsm = await jetstreamManager(nc, { timeout: 3000 });
      const current = (await opsJsm.streams.info(STREAM)).config;
      const update = (patch: object) => jsm.streams.update(STREAM, { ...current, ...patch });
      await refused(`${login}: narrow the subjects to lore.docs.>`, () =>
        update({ subjects: ['lore.docs.>'] }),
      );
      await refused(`${login}: seal`, () => update({ sealed: true }));
      await refused(`${login}: turn on roll-ups`, () => update({ allow_rollup_hdrs: true }));
      await refused(`${login}: republish to an open subject`, () =>
        update({ republish: { src: 'lore.>', dest: 'leak.>' } }),
      );
      await refused(`${login}: take another stream's messages in`, () =>
        update({ sources: [{ name: 'KV_lore_nodes' }] }),
      );
      await refused(`${login}: cap the stream at one message`, () => update({ max_msgs: 1 }));
      await refused(`${login}: purge`, () => jsm.streams.purge(STREAM));
      await refused(`${login}: delete the stream`, () => jsm.streams.delete(STREAM));
      await refused(`${login}: delete a message`, () => jsm.streams.deleteMessage(STREAM, 1));
      await refused(`${login}: read a message by sequence`, () => jsm.streams.getMessage(STREAM, { seq: 1 }));
      await refused(`${login}: direct get`, async () => {
        const r = await nc.request(`$JS.API.DIRECT.GET.${STREAM}`, JSON.stringify({ seq: 1 }), {
          timeout: 3000,
        });
        if (r.headers?.code && r.headers.code >= 400) throw new Error(r.headers.description);
      });
      await refused(`${login}: mirror the stream into one of its own`, () =>
        jsm.streams.add({ name: `MIRROR_${login}`, mirror: { name: STREAM } }),
      );
      await refused(`${login}: copy the stream into a new one`, () =>
        jsm.streams.add({
          name: `COPY_${login}`,
          subjects: [`copy.${login}.>`],
          sources: [{ name: STREAM }],
        }),
      );
      await refused(`${login}: create the event stream again under another name`, () =>
        jsm.streams.add(eventStreamConfig({ stream: `LORE_EVENTS_${login}`, subjectPrefix: `x${login}` })),
      );
      await refused(`${login}: a consumer of its own choosing`, () =>
        jsm.consumers.add(STREAM, { durable_name: `spy-${login}`, ack_policy: AckPolicy.None }),
      );
      await refused(`${login}: an ephemeral consumer`, () =>
        jsm.consumers.add(STREAM, { ack_policy: AckPolicy.None }),
      );
      await refused(`${login}: delete the users service's consumer`, () =>
        jsm.consumers.delete(STREAM, `users-activity-dms-${NODE}`),
      );
      for (const bucket of ['KV_lore_nodes', 'KV_lore_handles', 'KV_lore-rate-limits']) {
        await refused(`${login}: seal ${bucket}`, async () => {
          const cfg = (await opsJsm.streams.info(bucket)).config;
          await jsm.streams.update(bucket, { ...cfg, sealed: true } as typeof cfg);
        });
        await refused(`${login}: purge ${bucket}`, () => jsm.streams.purge(bucket));
        await refused(`${login}: delete ${bucket}`, () => jsm.streams.delete(bucket));
      }
      expect(gotThrough).toEqual([]);
    });
  }

  it('refuses a roll-up published on the stream by a login that may publish there', async () => {
    for (const service of NATS_SERVICES) {
      const js = jetstream(await as(service), { timeout: 3000 });
      const h = headers();
      h.set('Nats-Rollup', 'all');
      await refused(`${service}: publish with Nats-Rollup: all`, () =>
        js.publish(`lore.${service}.rollup`, '{}', { headers: h }),
      );
      const s = headers();
      s.set('Nats-Rollup', 'sub');
      await refused(`${service}: publish with Nats-Rollup: sub`, () =>
        js.publish(`lore.${service}.probe.1`, '{}', { headers: s }),
      );
    }
    // The directory's buckets: only the users service writes them, roll-ups included.
    for (const service of NATS_SERVICES.filter((s) => s !== 'users')) {
      const js = jetstream(await as(service), { timeout: 3000 });
      const h = headers();
      h.set('Nats-Rollup', 'sub');
      h.set('KV-Operation', 'PURGE');
      await refused(`${service}: purge a node key from lore_nodes`, () =>
        js.publish(`$KV.lore_nodes.${NODE}`, '', { headers: h }),
      );
    }
    expect(gotThrough).toEqual([]);
  });

  it('is exactly as provisioned afterwards, with every event still stored', async () => {
    const info = await opsJsm.streams.info(STREAM);
    expect(eventStreamDifferences(info.config)).toEqual({ unsafe: [], tuning: [] });
    expect(info.state.messages).toBe(stored);
    const names: string[] = [];
    for await (const s of opsJsm.streams.list()) names.push(s.config.name);
    expect(names.sort()).toEqual(
      [
        STREAM,
        'KV_lore-console-sessions',
        'KV_lore-rate-limits',
        'KV_lore_agents',
        'KV_lore_handles',
        'KV_lore_nodes',
      ].sort(),
    );
  });

  it('a service refuses to start on a stream that is missing or not as Lore needs it', async () => {
    const warnings: string[] = [];
    const connectAs = (user: string, streamWaitMs = 1_500) =>
      NatsBus.connect({
        url: nats.url,
        credentials: { kind: 'user', ...pick(auth.env(user)) },
        inboxPrefix: `_INBOX.${user}`,
        streamWaitMs,
        warn: (m) => warnings.push(m),
      });
    // Not as expected: the operator (or an older Lore) left roll-ups on and purges allowed.
    await opsJsm.streams.delete(STREAM);
    await opsJsm.streams.add({ name: STREAM, subjects: ['lore.>'], allow_rollup_hdrs: true });
    const wrong = await connectAs('docs').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(wrong).toBeInstanceOf(StreamSetupError);
    expect(String(wrong)).toMatch(
      /deny_purge is off.*roll-up headers.*may not change it.*lore jetstream provision/s,
    );
    // Missing: the service may not create it and says who can.
    await opsJsm.streams.delete(STREAM);
    const missing = await connectAs('knowledge').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(missing).toBeInstanceOf(StreamSetupError);
    expect(String(missing)).toMatch(/LORE_EVENTS does not exist and this NATS login may not create it/);
    // A service started with the provisioning (as a deployment starts both) waits for it.
    warnings.length = 0;
    const waiting = connectAs('users', 30_000);
    await expect
      .poll(() => warnings)
      .toEqual([expect.stringMatching(/waiting up to 30 s for the JetStream stream LORE_EVENTS/)]);
    await provisionAsOps(nats.url, auth);
    await (await waiting).close();
    // A bucket that is missing, the same.
    await opsJsm.streams.delete('KV_lore-rate-limits');
    const bucket = await openBucket(await as('dms'), 'lore-rate-limits').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(String(bucket)).toMatch(
      /KV bucket lore-rate-limits does not exist and this NATS login may not create it/,
    );
  });
});

const pick = (env: { NATS_USER: string; NATS_PASSWORD: string }) => ({
  user: env.NATS_USER,
  password: env.NATS_PASSWORD,
});
