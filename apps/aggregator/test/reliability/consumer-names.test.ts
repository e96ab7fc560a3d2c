/**
 * Can one service's NATS credentials take another service's JetStream durable consumer? Run
 * against the real nats-server (2.9 on Debian) with every auth.conf Lore ships: the Kubernetes
 * base's and each overlay's, each rendered for the LORE_NODE_ID its kustomization sets
 * (`pnpm nats:config`). Then, to show why names are allowed exactly: a variation whose consumer
 * subjects are narrowed to `<service>-*` names.
 *
 * What it shows (the reasoning is in infra/README.md, "JetStream consumer names"): in a
 * permission subject `*` and `>` match whole dot-separated tokens only, and a consumer name is a
 * single token (it may not contain a dot), so `LORE_EVENTS.users-*` is a literal name that
 * matches no real consumer; only exact names can be allowed, and Lore's end with the node id.
 * With the shipped files a service creates, pulls from and acknowledges exactly its own
 * consumers of its node, and `dms` can neither create, change, delete, read, pull from nor
 * acknowledge the users service's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  nodeIdentityFile,
  shareNodeIdentity,
  tempDir,
} from '@lore/kit/testing';
import { AckPolicy, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kustomizations, REPO_DIR, renderUsers } from '../../../../infra/nats/generate.js';
import { CONSUMERS, consumerSubjects, permissionsFor } from '../../../../infra/nats/permissions.js';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';
import { BASE_ENV } from './support.js';

const STREAM = 'LORE_EVENTS';
/** Every auth.conf the Kubernetes manifests ship, with the node id its kustomization sets. */
const SHIPPED = kustomizations(join(REPO_DIR, 'infra/k8s')).map((k) => ({
  name: `infra/k8s/${k.authConf}`,
  file: join(REPO_DIR, 'infra/k8s', k.authConf!),
  node: k.nodeId!,
}));

describe('JetStream durable consumer names under per-service NATS users', () => {
  const dir = tempDir('lore-consumer-names-');
  const servers: NatsServerProcess[] = [];
  const conns: NatsConnection[] = [];
  const procs: Spawned[] = [];
  /** The attacks on the shipped files, and those that got through. */
  const attempts: string[] = [];
  const gotThrough: string[] = [];

  /** A nats-server with `configFile` (a shipped one, or a variation), and a connector. */
  async function server(configFile: string) {
    const auth = new NatsAuthFixture(configFile);
    const nats = new NatsServerProcess(await freePort(), join(dir.path, `nats${servers.length}`), auth);
    await nats.start();
    servers.push(nats);
    const as = async (user: string) => {
      const nc = await connect({ servers: nats.url, ...auth.client(user), maxReconnectAttempts: 0 });
      conns.push(nc);
      return nc;
    };
    return { nats, as };
  }

  /** True when the call succeeded, false when the server refused it (or never answered it). */
  const allowed = (call: () => Promise<unknown>) =>
    call().then(
      () => true,
      () => false,
    );

  const addDurable = async (nc: NatsConnection, name: string, filter = 'lore.dms.>') => {
    const jsm = await jetstreamManager(nc, { timeout: 2_000 });
    await jsm.consumers.add(STREAM, {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      filter_subject: filter,
    });
  };

  beforeAll(() => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required for this test');
  });

  afterAll(async () => {
    console.log(
      `consumer names, shipped configurations: ${gotThrough.length} of ${attempts.length} attempts got through${gotThrough.length ? `: ${gotThrough.join('; ')}` : ''}`,
    );
    for (const c of conns) await c.close().catch(() => {});
    for (const p of procs) await p.kill('SIGTERM');
    for (const s of servers) await s.kill();
    dir.cleanup();
  });

  it('ships an auth.conf for the base and every overlay', () => {
    expect(SHIPPED.map((s) => [s.name, s.node])).toEqual([
      ['infra/k8s/base/nats/auth.conf', 'lore-k8s'],
      ['infra/k8s/overlays/dev/nats/auth.conf', 'lore-dev'],
      ['infra/k8s/overlays/prod/nats/auth.conf', 'lore-prod'],
    ]);
  });

  it.each(SHIPPED)(
    'with the shipped $name (LORE_NODE_ID=$node): dms neither creates, changes, deletes, reads, pulls from nor acknowledges the users service’s durable; users consumes its own',
    async ({ name, file, node }) => {
      const { as, nats } = await server(file);
      const victim = `users-activity-dms-${node}`;
      const users = await as('users');
      // The stream was provisioned by the operator (the harness's start, as `lore jetstream provision`).
      const jsm = await jetstreamManager(users, { timeout: 2_000 });
      // The owner creates its own consumer of this node, and no other name.
      expect(await allowed(() => addDurable(users, victim))).toBe(true);
      expect(await allowed(() => addDurable(users, 'users-activity-dms-other-node'))).toBe(false);
      const dms = await as('dms');
      const dmsJs = jetstream(dms, { timeout: 2_000 });
      const dmsJsm = await jetstreamManager(dms, { timeout: 2_000 });
      await dmsJs.publish('lore.dms.message.sent', '{"n":1}');
      await expect.poll(async () => (await jsm.consumers.info(STREAM, victim)).num_pending).toBe(1);

      /** An attack by `dms`: must be refused; `took` says whether it took effect anyway. */
      const attack = async (what: string, call: () => Promise<unknown>, took?: () => Promise<boolean>) => {
        const label = `${name}: ${what}`;
        attempts.push(label);
        const ok = await allowed(call);
        if (ok || (took && (await took()))) gotThrough.push(label);
      };
      const filter = async () => (await jsm.consumers.info(STREAM, victim)).config.filter_subject;
      await attack(
        'create the durable under its name',
        () => addDurable(dms, victim, 'lore.none'),
        async () => (await filter()) !== 'lore.dms.>',
      );
      await attack(
        'change its filter',
        () => dmsJsm.consumers.update(STREAM, victim, { filter_subject: 'lore.none' }),
        async () => (await filter()) !== 'lore.dms.>',
      );
      await attack('delete it', () => dmsJsm.consumers.delete(STREAM, victim));
      await attack('read its info', () => dmsJsm.consumers.info(STREAM, victim));
      await attack(
        'pull from it',
        async () => {
          const consumer = await dmsJs.consumers.get(STREAM, victim);
          const msg = await consumer.next({ expires: 2_000 });
          if (!msg) throw new Error('nothing pulled');
          await msg.ackAck({ timeout: 2_000 });
        },
        async () => (await jsm.consumers.info(STREAM, victim)).num_pending !== 1,
      );
      // The pull request itself, sent by hand (the client above stops at the refused info request).
      await attack(
        'pull from it by hand',
        () =>
          dms.request(
            `$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${victim}`,
            JSON.stringify({ batch: 1, no_wait: true }),
            {
              timeout: 2_000,
            },
          ),
        async () => (await jsm.consumers.info(STREAM, victim)).num_pending !== 1,
      );
      await expect
        .poll(() => nats.output)
        .toMatch(
          new RegExp(
            `Violation - User "dms", Subject "\\$JS\\.API\\.CONSUMER\\.MSG\\.NEXT\\.${STREAM}\\.${victim}"`,
          ),
        );
      await expect
        .poll(() => nats.output)
        .toMatch(
          new RegExp(
            `Violation - User "dms", Subject "\\$JS\\.API\\.CONSUMER\\.DELETE\\.${STREAM}\\.${victim}"`,
          ),
        );

      // The users service pulls the event; dms acknowledges it on the service's behalf (the
      // service would then never be given it again): refused, the event stays unacknowledged.
      const consumer = await jetstream(users, { timeout: 2_000 }).consumers.get(STREAM, victim);
      const msg = (await consumer.next({ expires: 2_000 })) as JsMsg;
      expect(msg?.string()).toBe('{"n":1}');
      const ackPending = async () => (await jsm.consumers.info(STREAM, victim)).num_ack_pending;
      expect(await ackPending()).toBe(1);
      // The subject the service would acknowledge on (the client keeps the delivered message).
      const ackSubject = (msg as JsMsg & { msg?: { reply?: string } }).msg?.reply;
      expect(ackSubject).toMatch(new RegExp(`^\\$JS\\.ACK\\.${STREAM}\\.${victim}\\.`));
      await attack(
        'acknowledge its event',
        async () => {
          dms.publish(ackSubject!, '+ACK');
          await dms.flush();
          await expect
            .poll(() => nats.output)
            .toMatch(new RegExp(`Violation - User "dms", Subject "\\$JS\\.ACK\\.${STREAM}\\.${victim}\\.`));
          throw new Error('refused');
        },
        async () => (await ackPending()) !== 1,
      );
      // The owner acknowledges it, and consumes the next one.
      expect(await allowed(() => msg.ackAck({ timeout: 2_000 }))).toBe(true);
      await dmsJs.publish('lore.dms.message.sent', '{"n":2}');
      const next = await consumer.next({ expires: 5_000 });
      expect(next?.string()).toBe('{"n":2}');
      expect(await allowed(() => next!.ackAck({ timeout: 2_000 }))).toBe(true);
      const info = await jsm.consumers.info(STREAM, victim);
      expect([info.num_pending, info.num_ack_pending, info.delivered.consumer_seq]).toEqual([0, 0, 2]);
      expect(nats.output).not.toMatch(/Violation - User "users"[^\n]*users-activity-dms-lore/);
      expect(gotThrough.filter((g) => g.startsWith(name))).toEqual([]);
    },
  );

  it('with consumer subjects narrowed to `<service>-*`: the owner itself is refused, the prefix is literal', async () => {
    const { as, nats } = await server(narrowed((user) => `${user}-*`));
    const users = await as('users');
    expect(await allowed(() => addDurable(users, 'users-activity-n1'))).toBe(false);
    await expect
      .poll(() => nats.output)
      .toMatch(
        /Publish Violation - User "users", Subject "\$JS\.API\.CONSUMER\.CREATE\.LORE_EVENTS\.users-activity-n1\.lore\.dms\.>"/,
      );
    // The server takes the pattern's `*` as a character of a name, not as a wildcard over one.
    expect(await allowed(() => addDurable(users, 'users-activity'))).toBe(false);
  });

  it('with the dev overlay’s shipped auth.conf: the services run on exactly their own consumers of lore-dev, with no refusal', async () => {
    const shipped = SHIPPED.find((s) => s.name.includes('overlays/dev'))!;
    const node = shipped.node;
    const { as, nats } = await server(shipped.file);
    const auth = nats.auth!;
    const identity = nodeIdentityFile(join(dir.path, 'identity'), node);
    const start = (s: string) =>
      spawnTs(
        join(ROOT, `packages/${s}/src/main.ts`),
        [],
        {
          ...BASE_ENV,
          NATS_URL: nats.url,
          ...auth.env(s),
          LORE_NODE_ID: node,
          LORE_DATA_DIR: shareNodeIdentity(identity, join(dir.path, s)),
          LORE_PORT: '0',
        },
        /"url":"(http[^"]+)"/,
        90_000,
      );
    procs.push(await start('users'));
    procs.push(...(await Promise.all(['queries', 'approvals'].map(start))));
    const expected = [...CONSUMERS.users, ...CONSUMERS.queries, ...CONSUMERS.approvals]
      .map((c) => `${c}-${node}`)
      .sort();
    const ops = await jetstreamManager(await as('ops'), { timeout: 2_000 });
    const names = async () => {
      const out: string[] = [];
      for await (const c of ops.consumers.list(STREAM)) out.push(c.name);
      return out.sort();
    };
    await expect.poll(names, { timeout: 60_000, interval: 500 }).toEqual(expected);
    // Each consumer has a pull waiting on the server: the service's MSG.NEXT was let through.
    const waiting = async () => {
      let n = 0;
      for await (const c of ops.consumers.list(STREAM)) if (c.num_waiting > 0) n++;
      return n;
    };
    await expect.poll(waiting, { timeout: 20_000, interval: 500 }).toBe(expected.length);
    expect(nats.output).not.toMatch(/Violation - User "(?:users|queries|approvals)"/);
  }, 240_000);

  /**
   * Lore's users and permissions with each service user's `LORE_EVENTS` consumer subjects
   * (create, durable create, info, next, ack) for the consumer name `name(user)` only.
   */
  function narrowed(name: (user: string) => string): string {
    const text = renderUsers((user) => {
      const p = permissionsFor(user, ['n1']);
      const ours = new Set(
        consumerSubjects(Object.values(CONSUMERS).flatMap((cs) => cs.map((c) => `${c}-n1`))),
      );
      if (['node', 'ops', 'aggregator'].includes(user)) return p;
      return { ...p, publish: [...p.publish.filter((s) => !ours.has(s)), ...consumerSubjects([name(user)])] };
    });
    expect(text).toContain(`$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${name('users')}`);
    const file = join(dir.path, `auth-${servers.length}.conf`);
    writeFileSync(file, text);
    return file;
  }
});
