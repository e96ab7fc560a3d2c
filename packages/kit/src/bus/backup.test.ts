import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, NatsServerProcess, tempDir } from '../testing/index.js';
import { backupStream, restoreStream } from './backup.js';
import { runJetStreamCli } from './backup-cli.js';

/** `lore jetstream …` as the operator runs it, with its output. */
async function cli(argv: string[], natsUrl: string | undefined) {
  const out = new PassThrough();
  const err = new PassThrough();
  let text = '';
  out.on('data', (d) => (text += d));
  err.on('data', (d) => (text += d));
  const code = await runJetStreamCli(argv, { natsUrl, stdout: out, stderr: err });
  return { code, text };
}

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c();
});

async function server(root: string, name: string): Promise<{ nats: NatsServerProcess; nc: NatsConnection }> {
  const nats = new NatsServerProcess(await freePort(), join(root, name));
  await nats.start();
  const nc = await connect({ servers: nats.url });
  open.push(
    () => nats.kill(),
    () => nc.close(),
  );
  return { nats, nc };
}

describe('JetStream backup and restore through the JetStream API', () => {
  it('brings a stream and a KV bucket back on an empty server, with headers, order and deletions', async () => {
    const dir = tempDir();
    open.push(dir.cleanup);
    const a = await server(dir.path, 'a');
    const jsm = await jetstreamManager(a.nc);
    await jsm.streams.add({ name: 'BACKUP_EVENTS', subjects: ['bk.>'], duplicate_window: 120_000_000_000 });
    const js = jetstream(a.nc);
    for (let i = 0; i < 25; i++) {
      const h = headers();
      h.set('Nats-Msg-Id', `event-${i}`);
      h.set('Lore-Trace', `t${i}`);
      await js.publish(`bk.${i % 3 === 0 ? 'asked' : 'answered'}`, JSON.stringify({ n: i }), { headers: h });
    }
    await jsm.streams.deleteMessage('BACKUP_EVENTS', 7);
    const kv = await new Kvm(a.nc).create('backup_handles');
    await kv.put('ada', '{"node":"n1"}');
    await kv.put('bob', '{"node":"n2"}');
    await kv.delete('bob');

    expect(await cli(['backup', 'BACKUP_EVENTS', join(dir.path, 'events.jsonl')], a.nats.url)).toEqual({
      code: 0,
      text: `backed up 24 messages of BACKUP_EVENTS to ${join(dir.path, 'events.jsonl')}\n`,
    });
    await backupStream(a.nc, 'KV_backup_handles', join(dir.path, 'handles.jsonl'));
    await a.nats.kill();

    const b = await server(dir.path, 'b');
    expect(await cli(['restore', join(dir.path, 'events.jsonl')], b.nats.url)).toMatchObject({
      code: 0,
      text: expect.stringContaining('restored 24 messages'),
    });
    await restoreStream(b.nc, join(dir.path, 'handles.jsonl'));
    const jsmB = await jetstreamManager(b.nc);
    const restored: Array<{ subject: string; n: number; id?: string; trace?: string }> = [];
    for (let seq = 1; seq <= 24; seq++) {
      const m = (await jsmB.streams.getMessage('BACKUP_EVENTS', { seq }))!;
      restored.push({
        subject: m.subject,
        n: (m.json() as { n: number }).n,
        id: m.header.get('Nats-Msg-Id'),
        trace: m.header.get('Lore-Trace'),
      });
    }
    const expected = Array.from({ length: 25 }, (_, i) => i)
      .filter((i) => i !== 6)
      .map((i) => ({
        subject: `bk.${i % 3 === 0 ? 'asked' : 'answered'}`,
        n: i,
        id: `event-${i}`,
        trace: `t${i}`,
      }));
    expect(restored).toEqual(expected);
    // Duplicate detection carries over: the same message id again is not stored twice.
    const again = headers();
    again.set('Nats-Msg-Id', 'event-24');
    expect((await jetstream(b.nc).publish('bk.answered', '{}', { headers: again })).duplicate).toBe(true);
    const kvB = await new Kvm(b.nc).open('backup_handles');
    expect((await kvB.get('ada'))?.string()).toBe('{"node":"n1"}');
    expect((await kvB.get('bob'))?.operation).toBe('DEL');
    // A stream that exists is not merged into.
    await expect(restoreStream(b.nc, join(dir.path, 'events.jsonl'))).rejects.toThrow(
      /stream BACKUP_EVENTS exists: delete it before restoring it/,
    );
  }, 60_000);

  it('names what is missing or wrong', async () => {
    expect(await cli(['backup', 'LORE_EVENTS'], 'nats://127.0.0.1:1')).toMatchObject({
      code: 2,
      text: expect.stringContaining('jetstream backup needs <stream> and <file>'),
    });
    expect(await cli(['restore', '/tmp/x'], undefined)).toMatchObject({
      code: 2,
      text: expect.stringContaining('NATS_URL is not set'),
    });
    expect(await cli(['export'], undefined)).toMatchObject({
      code: 2,
      text: expect.stringContaining('Unknown command: jetstream export'),
    });
    expect(await cli(['backup', '--stream', 'LORE_EVENTS', '/tmp/x'], undefined)).toMatchObject({
      code: 2,
      text: expect.stringMatching(/unknown option '--stream'[\s\S]*Usage: lore jetstream/),
    });
    expect(await cli([], undefined)).toMatchObject({
      code: 2,
      text: expect.stringContaining('jetstream needs a command: provision, backup or restore'),
    });
    expect(await cli(['provision', '--replicas', '7'], 'nats://127.0.0.1:1')).toMatchObject({
      code: 2,
      text: expect.stringContaining('--replicas must be 1 to 5, not 7'),
    });
    expect(await cli(['provision', 'LORE_EVENTS'], 'nats://127.0.0.1:1')).toMatchObject({
      code: 2,
      text: expect.stringContaining('jetstream provision takes no arguments'),
    });
    expect(
      await cli(['backup', '--replicas', '3', 'LORE_EVENTS', '/tmp/x'], 'nats://127.0.0.1:1'),
    ).toMatchObject({
      code: 2,
      text: expect.stringContaining('--replicas belongs to jetstream provision'),
    });
    expect(await cli(['--help'], undefined)).toMatchObject({
      code: 0,
      text: expect.stringContaining('Usage:'),
    });
  });
});
