import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, NatsServerProcess, tempDir } from '../testing/index.js';
import { NatsAuthFixture } from '../testing/nats-auth.js';
import { runJetStreamCli } from './backup-cli.js';
import { NatsBus } from './nats.js';
import { checkEventStream, eventStreamDifferences, StreamSetupError } from './provision.js';

async function cli(argv: string[], natsUrl: string, env: Record<string, string>) {
  const out = new PassThrough();
  const err = new PassThrough();
  let text = '';
  out.on('data', (d) => (text += d));
  err.on('data', (d) => (text += d));
  const code = await runJetStreamCli(argv, { natsUrl, env, stdout: out, stderr: err });
  return { code, text };
}

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c();
});

/** A private nats-server: with the shipped users (not provisioned yet), or open. */
async function server(withAuth: boolean) {
  const dir = tempDir('lore-provision-');
  const auth = withAuth ? new NatsAuthFixture({ nodes: ['n1'], dir: dir.path }) : undefined;
  const nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
  await nats.start();
  open.push(dir.cleanup, () => nats.kill());
  return { nats, auth };
}

describe('lore jetstream provision', () => {
  it('creates the stream and buckets as the ops user, reports them as expected the second time, and is refused to a service', async () => {
    const { nats, auth } = await server(true);
    const ops = auth!.env('ops');
    // The harness provisioned at start; drop it all to provision from nothing, as on a new server.
    const nc = await connect({ servers: nats.url, ...auth!.client('ops') });
    open.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    for await (const s of jsm.streams.list()) await jsm.streams.delete(s.config.name);

    const first = await cli(['provision'], nats.url, ops);
    expect(first.code).toBe(0);
    expect(first.text.split('\n').filter(Boolean).sort()).toEqual(
      [
        'LORE_EVENTS: created',
        'KV_lore_handles: created',
        'KV_lore_nodes: created',
        'KV_lore_agents: created',
        'KV_lore-rate-limits: created',
        'KV_lore-console-sessions: created',
      ].sort(),
    );
    const again = await cli(['provision'], nats.url, ops);
    expect(again).toMatchObject({ code: 0 });
    expect(again.text).not.toMatch(/created|updated/);
    expect(again.text.match(/as expected/g)).toHaveLength(6);
    const { config } = await jsm.streams.info('LORE_EVENTS');
    expect(config).toMatchObject({ deny_delete: true, deny_purge: true, allow_rollup_hdrs: false });
    expect((await jsm.streams.info('KV_lore-rate-limits')).config.max_age).toBe(180_000_000_000);

    const asService = await cli(['provision'], nats.url, auth!.env('docs'));
    expect(asService.code).toBe(1);
    expect(asService.text).toMatch(/jetstream provision: .*Permissions Violation/);
  });

  it('brings a stream an older Lore created to Lore settings', async () => {
    const { nats } = await server(false);
    const nc = await connect({ servers: nats.url });
    open.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'LORE_EVENTS', subjects: ['lore.>'], allow_rollup_hdrs: true });
    const { code, text } = await cli(['provision'], nats.url, {});
    expect(code).toBe(0);
    expect(text).toMatch(
      /LORE_EVENTS: updated \(it allows deleting messages \(deny_delete is off\); it allows purging \(deny_purge is off\); it accepts roll-up headers/,
    );
    expect(eventStreamDifferences((await jsm.streams.info('LORE_EVENTS')).config)).toEqual({
      unsafe: [],
      tuning: [],
    });
  });
});

describe('a service checking the event stream at start', () => {
  it('on an open NATS creates a missing stream with Lore settings, and brings an old one to them', async () => {
    const { nats } = await server(false);
    const bus = await NatsBus.connect({ url: nats.url, stream: 'CHECK_EVENTS', subjectPrefix: 'chk' });
    await bus.close();
    const nc = await connect({ servers: nats.url });
    open.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    const spec = { stream: 'CHECK_EVENTS', subjectPrefix: 'chk' };
    expect(eventStreamDifferences((await jsm.streams.info('CHECK_EVENTS')).config, spec)).toEqual({
      unsafe: [],
      tuning: [],
    });
    await jsm.streams.add({ name: 'OLD_EVENTS', subjects: ['old.>'] });
    await checkEventStream(jsm, { stream: 'OLD_EVENTS', subjectPrefix: 'old' });
    expect((await jsm.streams.info('OLD_EVENTS')).config).toMatchObject({
      deny_delete: true,
      deny_purge: true,
    });
  });

  it('refuses a sealed stream whoever it is, naming what to do', async () => {
    const { nats } = await server(false);
    const nc = await connect({ servers: nats.url });
    open.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'SEALED_EVENTS', subjects: ['sealed.>'] });
    const { config } = await jsm.streams.info('SEALED_EVENTS');
    await jsm.streams.update('SEALED_EVENTS', { ...config, sealed: true } as typeof config);
    const err = await checkEventStream(jsm, { stream: 'SEALED_EVENTS', subjectPrefix: 'sealed' }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(StreamSetupError);
    expect(String(err)).toMatch(/SEALED_EVENTS is sealed .*delete it as the ops user and provision it again/);
  });

  it('with a service login: starts on a provisioned stream, warns (and runs) when only its replicas differ', async () => {
    const { nats, auth } = await server(true);
    const warnings: string[] = [];
    const env = auth!.env('users');
    const bus = await NatsBus.connect({
      url: nats.url,
      credentials: { kind: 'user', user: env.NATS_USER, password: env.NATS_PASSWORD },
      inboxPrefix: '_INBOX.users',
      replicas: 1,
      warn: (m) => warnings.push(m),
    });
    await bus.close();
    expect(warnings).toEqual([]);
    const nc = await connect({ servers: nats.url, ...auth!.client('ops') });
    open.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await jsm.streams.update('LORE_EVENTS', { duplicate_window: 60_000_000_000 });
    const again = await NatsBus.connect({
      url: nats.url,
      credentials: { kind: 'user', user: env.NATS_USER, password: env.NATS_PASSWORD },
      inboxPrefix: '_INBOX.users',
      warn: (m) => warnings.push(m),
    });
    await again.close();
    expect(warnings).toEqual([
      expect.stringMatching(
        /LORE_EVENTS: its duplicate window is 60000000000 ns instead of 120000000000 .*lore jetstream provision/,
      ),
    ]);
  });
});
