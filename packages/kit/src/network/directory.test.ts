import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS_URL, reachable } from '../testing/nats.js';
import { NatsDirectory } from './directory.js';

const natsUp = await reachable(NATS_URL);
if (!natsUp && !process.env.CI) {
  console.warn(`NatsDirectory tests skipped: no NATS at ${NATS_URL} (start one or set NATS_URL)`);
}

/** Two processes of a network, each with its own connection and its own directory replica. */
describe.skipIf(!natsUp && !process.env.CI)('NatsDirectory', () => {
  const prefix = `t${randomUUID().slice(0, 8)}_`;
  let ncA: NatsConnection;
  let ncB: NatsConnection;
  let a: NatsDirectory;
  let b: NatsDirectory;

  beforeAll(async () => {
    ncA = await connect({ servers: NATS_URL });
    ncB = await connect({ servers: NATS_URL });
    a = await NatsDirectory.open(ncA, prefix);
    b = await NatsDirectory.open(ncB, prefix);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    const jsm = await jetstreamManager(ncA);
    for (const bucket of ['lore_handles', 'lore_nodes'])
      await jsm.streams.delete(`KV_${prefix}${bucket}`).catch(() => {});
    await ncA?.close();
    await ncB?.close();
  });

  it('claims a handle once across processes, and sees another process’s claim at once', async () => {
    expect(await a.claimHandle('ada', { agentId: 'ada-1', node: 'node-a' })).toBe(true);
    // B asks right away, before its watch could have told it.
    expect(await b.lookupHandle('ada')).toEqual({ agentId: 'ada-1', node: 'node-a' });
    expect(await b.claimHandle('ada', { agentId: 'ada-2', node: 'node-b' })).toBe(false);
    // Claiming again for the same agent is fine (a restart re-claims its handles).
    expect(await b.claimHandle('ada', { agentId: 'ada-1', node: 'node-a' })).toBe(true);
    expect(await a.lookupHandle('nobody')).toBeNull();
  });

  it('lists every handle, and answers look-ups from its replica without asking NATS', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `many_${i}`);
    await Promise.all(many.map((h, i) => a.claimHandle(h, { agentId: `m-${i}`, node: 'node-a' })));
    await expect
      .poll(async () => (await b.listHandles()).filter((h) => h.handle.startsWith('many_')).length)
      .toBe(300);
    const listed = await b.listHandles();
    expect(listed.find((h) => h.handle === 'many_7')).toEqual({
      handle: 'many_7',
      agentId: 'm-7',
      node: 'node-a',
    });
    const before = ncB.stats().outMsgs;
    for (const h of many) expect((await b.lookupHandle(h))?.agentId).toBe(`m-${h.slice(5)}`);
    expect(ncB.stats().outMsgs).toBe(before);
  });

  it('forgets a released handle: at once in the releasing process, as soon as the watch says in others', async () => {
    await a.claimHandle('bea', { agentId: 'bea-1', node: 'node-a' });
    await expect.poll(async () => (await b.listHandles()).some((h) => h.handle === 'bea')).toBe(true);
    // Only the holder's release counts.
    await b.releaseHandle('bea', 'someone-else');
    expect(await a.lookupHandle('bea')).toEqual({ agentId: 'bea-1', node: 'node-a' });
    await a.releaseHandle('bea', 'bea-1');
    expect(await a.lookupHandle('bea')).toBeNull();
    expect((await a.listHandles()).some((h) => h.handle === 'bea')).toBe(false);
    await expect.poll(() => b.lookupHandle('bea')).toBeNull();
    // Free again: another agent on another node takes it, and both processes see the new holder.
    expect(await b.claimHandle('bea', { agentId: 'bea-2', node: 'node-b' })).toBe(true);
    expect(await b.lookupHandle('bea')).toEqual({ agentId: 'bea-2', node: 'node-b' });
    await expect.poll(() => a.lookupHandle('bea')).toEqual({ agentId: 'bea-2', node: 'node-b' });
    expect((await a.listHandles()).filter((h) => h.handle === 'bea')).toEqual([
      { handle: 'bea', agentId: 'bea-2', node: 'node-b' },
    ]);
  });

  it('a directory opened later starts from the handles already claimed', async () => {
    const nc = await connect({ servers: NATS_URL });
    try {
      const late = await NatsDirectory.open(nc, prefix);
      const handles = (await late.listHandles()).map((h) => h.handle);
      expect(handles).toContain('ada');
      expect(handles).toContain('bea');
      expect(handles.filter((h) => h.startsWith('many_'))).toHaveLength(300);
      await late.close();
      // Closed: the watch is gone, look-ups read the bucket.
      expect(await late.lookupHandle('ada')).toEqual({ agentId: 'ada-1', node: 'node-a' });
    } finally {
      await nc.close();
    }
  });
});
