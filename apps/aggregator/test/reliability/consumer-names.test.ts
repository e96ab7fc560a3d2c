/**
 * Can a service's NATS user be limited to its own JetStream durable consumers by name prefix?
 * Run against the real nats-server (2.9 on Debian) with the shipped users and permissions
 * (infra/nats/auth.conf), then with a copy of it whose consumer subjects are narrowed to
 * `<service>-*` names and, last, to one exact name.
 *
 * What it shows (the reasoning is in infra/README.md, "JetStream consumer names"): in a
 * permission subject `*` and `>` match whole dot-separated tokens only, and a consumer name is a
 * single token (it may not contain a dot), so `LORE_EVENTS.users-*` is a literal name that
 * matches no real consumer; only exact names can be allowed. With the shipped configuration a
 * service cannot delete another service's durable consumer, but it can still pull from it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  nodeIdentityFile,
  shareNodeIdentity,
  tempDir,
} from '@lore/kit/testing';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAuth } from '../../../../infra/nats/generate.js';
import { CONSUMERS } from '../../../../infra/nats/permissions.js';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';
import { BASE_ENV } from './support.js';

const STREAM = 'LORE_EVENTS';
const VICTIM = 'users-activity-n1';

describe('JetStream durable consumer names under per-service NATS users', () => {
  const dir = tempDir('lore-consumer-names-');
  const servers: NatsServerProcess[] = [];
  const conns: NatsConnection[] = [];
  const procs: Spawned[] = [];

  /** A nats-server with `configFile` (the shipped one, or a narrowed copy), and a connector. */
  async function server(configFile?: string) {
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

  const addDurable = async (nc: NatsConnection, name: string) => {
    const jsm = await jetstreamManager(nc, { timeout: 2_000 });
    await jsm.consumers.add(STREAM, {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      filter_subject: 'lore.dms.>',
    });
  };

  beforeAll(() => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required for this test');
  });

  afterAll(async () => {
    for (const c of conns) await c.close().catch(() => {});
    for (const p of procs) await p.kill('SIGTERM');
    for (const s of servers) await s.kill();
    dir.cleanup();
  });

  it('with the shipped configuration: another service cannot delete a durable, but can pull from it', async () => {
    const { as, nats } = await server();
    const users = await as('users');
    const jsm = await jetstreamManager(users, { timeout: 2_000 });
    await jsm.streams.add({ name: STREAM, subjects: ['lore.>'] });
    await addDurable(users, VICTIM);
    const dms = await as('dms');
    await jetstream(dms).publish('lore.dms.message.sent', '{}');

    const dmsJsm = await jetstreamManager(dms, { timeout: 2_000 });
    expect(await allowed(() => dmsJsm.consumers.delete(STREAM, VICTIM))).toBe(false);
    await expect
      .poll(() => nats.output)
      .toMatch(
        /Publish Violation - User "dms", Subject "\$JS\.API\.CONSUMER\.DELETE\.LORE_EVENTS\.users-activity-n1"/,
      );
    // The gap: the subjects that pull and acknowledge cannot be scoped to the owner's names.
    const stolen = await allowed(async () => {
      const consumer = await jetstream(dms, { timeout: 2_000 }).consumers.get(STREAM, VICTIM);
      const msg = await consumer.next({ expires: 2_000 });
      if (!msg) throw new Error('nothing pulled');
      msg.ack();
    });
    expect(stolen).toBe(true);
    expect((await jsm.consumers.info(STREAM, VICTIM)).num_pending).toBe(0);
  });

  it('with consumer subjects narrowed to `<service>-*`: the owner itself is refused, the prefix is literal', async () => {
    const { as, nats } = await server(narrowed((user) => `${user}-*`));
    const users = await as('users');
    await (await jetstreamManager(users, { timeout: 2_000 })).streams.add({
      name: STREAM,
      subjects: ['lore.>'],
    });
    expect(await allowed(() => addDurable(users, VICTIM))).toBe(false);
    await expect
      .poll(() => nats.output)
      .toMatch(
        /Publish Violation - User "users", Subject "\$JS\.API\.CONSUMER\.CREATE\.LORE_EVENTS\.users-activity-n1\.lore\.dms\.>"/,
      );
    // The server takes the pattern's `*` as a character of a name, not as a wildcard over one.
    expect(await allowed(() => addDurable(users, 'users-activity'))).toBe(false);
  });

  it('with one exact name allowed: the owner creates, pulls and acks it, another service cannot', async () => {
    const { as } = await server(narrowed((user) => (user === 'users' ? VICTIM : `${user}-only`)));
    const users = await as('users');
    await (await jetstreamManager(users, { timeout: 2_000 })).streams.add({
      name: STREAM,
      subjects: ['lore.>'],
    });
    expect(await allowed(() => addDurable(users, VICTIM))).toBe(true);
    expect(await allowed(() => addDurable(users, 'users-other'))).toBe(false);
    const dms = await as('dms');
    await jetstream(dms).publish('lore.dms.message.sent', '{}');
    const pull = (nc: NatsConnection) =>
      allowed(async () => {
        const consumer = await jetstream(nc, { timeout: 2_000 }).consumers.get(STREAM, VICTIM);
        const msg = await consumer.next({ expires: 2_000 });
        if (!msg) throw new Error('nothing pulled');
        await msg.ackAck({ timeout: 2_000 });
      });
    expect(await pull(dms)).toBe(false);
    expect(await pull(users)).toBe(true);
  });

  it('with `pnpm nats:config --nodes`: the services run on exactly their own consumers, and no other service touches them', async () => {
    const node = 'exact-node';
    const file = join(dir.path, 'auth-exact.conf');
    writeFileSync(file, renderAuth([node]));
    const { as, nats } = await server(file);
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

    // Another service's credentials: no pull, no re-creation with another filter, no deletion.
    const dms = await as('dms');
    const victim = `users-activity-dms-${node}`;
    expect(
      await allowed(async () => {
        const consumer = await jetstream(dms, { timeout: 2_000 }).consumers.get(STREAM, victim);
        await consumer.next({ expires: 2_000 });
      }),
    ).toBe(false);
    // The pull request itself, sent by hand (the client above stops at the refused info request).
    expect(
      await allowed(() =>
        dms.request(
          `$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${victim}`,
          JSON.stringify({ batch: 1, no_wait: true }),
          {
            timeout: 2_000,
          },
        ),
      ),
    ).toBe(false);
    const before = (await ops.consumers.info(STREAM, victim)).config.filter_subject;
    const dmsJsm = await jetstreamManager(dms, { timeout: 2_000 });
    expect(
      await allowed(() => dmsJsm.consumers.update(STREAM, victim, { filter_subject: 'lore.none' })),
    ).toBe(false);
    expect(await allowed(() => dmsJsm.consumers.delete(STREAM, victim))).toBe(false);
    await expect
      .poll(() => nats.output)
      .toMatch(
        /Violation - User "dms", Subject "\$JS\.API\.CONSUMER\.MSG\.NEXT\.LORE_EVENTS\.users-activity-dms-exact-node"/,
      );
    expect((await ops.consumers.info(STREAM, victim)).config.filter_subject).toBe(before);
    expect(before).toMatch(/^lore\.dms\./);
  }, 240_000);

  /**
   * The shipped auth.conf with each service user's `LORE_EVENTS` consumer subjects (create,
   * durable create, info, next, ack) narrowed to consumer name `name(user)`.
   */
  function narrowed(name: (user: string) => string): string {
    const shipped = readFileSync(new NatsAuthFixture().configFile, 'utf8');
    const blocks = shipped.split(/(?=\n\s*\{\n\s*user: ")/);
    const out = blocks
      .map((block) => {
        const user = /user: "([^"]+)"/.exec(block)?.[1];
        if (!user) return block;
        const n = name(user);
        return block
          .replace(`"$JS.API.CONSUMER.CREATE.${STREAM}.>"`, `"$JS.API.CONSUMER.CREATE.${STREAM}.${n}.>"`)
          .replace(
            `"$JS.API.CONSUMER.DURABLE.CREATE.${STREAM}.>"`,
            `"$JS.API.CONSUMER.DURABLE.CREATE.${STREAM}.${n}"`,
          )
          .replace(`"$JS.API.CONSUMER.INFO.${STREAM}.>"`, `"$JS.API.CONSUMER.INFO.${STREAM}.${n}"`)
          .replace(`"$JS.API.CONSUMER.MSG.NEXT.${STREAM}.>"`, `"$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${n}"`)
          .replace(`"$JS.ACK.${STREAM}.>"`, `"$JS.ACK.${STREAM}.${n}.>"`);
      })
      .join('');
    expect(out).toContain(`$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${name('users')}`);
    const file = join(dir.path, `auth-${servers.length}.conf`);
    writeFileSync(file, out);
    return file;
  }
});
