import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, NatsServerProcess } from '../testing/nats.js';
import { type AgentCard, NatsDirectory, type NetworkDirectory } from './directory.js';
import { MemoryDirectory } from './memory-directory.js';

const card = (handle: string, node: string, agentId: string): AgentCard => ({
  agentId,
  handle,
  node,
  displayName: handle,
  bio: '',
  skills: [],
  interests: [],
  lastSeen: null,
  createdAt: 0,
});

/**
 * Agents of other operators' nodes, as the network link records them: a handle already taken
 * here makes theirs qualified (`dana@node-c`), a local claim takes a handle over from them, and
 * look-ups by the qualified form find the right agent either way.
 */
function suite(name: string, open: () => Promise<NetworkDirectory>) {
  describe(`agents of other operators in the ${name} directory`, () => {
    it('looks an agent up by its plain or its qualified handle, and no other node’s', async () => {
      const dir = await open();
      expect(await dir.putNetworkHandle('bob', { agentId: 'bob-1', node: 'node-b' })).toBe(true);
      expect(await dir.lookupHandle('bob')).toEqual({ agentId: 'bob-1', node: 'node-b', network: true });
      expect((await dir.lookupHandle('bob@node-b'))?.agentId).toBe('bob-1');
      expect(await dir.lookupHandle('bob@node-x')).toBeNull();
    });

    it('never replaces a local claim; the other node’s agent is stored qualified', async () => {
      const dir = await open();
      await dir.claimHandle('ann', { agentId: 'ann-a', node: 'node-a' });
      expect(await dir.putNetworkHandle('ann', { agentId: 'ann-c', node: 'node-c' })).toBe(false);
      expect(await dir.putNetworkHandle('ann@node-c', { agentId: 'ann-c', node: 'node-c' })).toBe(true);
      expect((await dir.lookupHandle('ann'))?.agentId).toBe('ann-a');
      expect((await dir.lookupHandle('ann@node-c'))?.agentId).toBe('ann-c');
      expect((await dir.lookupHandle('ann@node-a'))?.agentId).toBe('ann-a');
      const listed = (await dir.listHandles()).filter((h) => h.handle.startsWith('ann'));
      expect(listed.map((h) => h.handle).sort()).toEqual(['ann', 'ann@node-c']);
      await dir.putAgentCard(card('ann@node-c', 'node-c', 'ann-c'));
      expect((await dir.agentCards()).find((c) => c.agentId === 'ann-c')?.handle).toBe('ann@node-c');
    });

    it('a local claim takes a handle over from another operator’s agent, which becomes qualified', async () => {
      const dir = await open();
      await dir.putNetworkHandle('dana', { agentId: 'dana-c', node: 'node-c' });
      await dir.putAgentCard(card('dana', 'node-c', 'dana-c'));
      expect(await dir.claimHandle('dana', { agentId: 'dana-a', node: 'node-a' })).toBe(true);
      expect(await dir.lookupHandle('dana')).toEqual({ agentId: 'dana-a', node: 'node-a' });
      expect((await dir.lookupHandle('dana@node-c'))?.agentId).toBe('dana-c');
      const cards = await dir.agentCards();
      expect(cards.find((c) => c.agentId === 'dana-c')?.handle).toBe('dana@node-c');
      // A second local agent still cannot take a handle a local agent holds.
      expect(await dir.claimHandle('dana', { agentId: 'dana-z', node: 'node-a' })).toBe(false);
    });

    it('forgets an agent only for the node that announced it', async () => {
      const dir = await open();
      await dir.putNetworkHandle('eve', { agentId: 'eve-b', node: 'node-b' });
      await dir.removeNetworkHandle('eve', 'node-c');
      expect((await dir.lookupHandle('eve'))?.agentId).toBe('eve-b');
      await dir.removeNetworkHandle('eve', 'node-b');
      expect(await dir.lookupHandle('eve')).toBeNull();
      await dir.claimHandle('fay', { agentId: 'fay-a', node: 'node-a' });
      await dir.removeNetworkHandle('fay', 'node-a');
      expect((await dir.lookupHandle('fay'))?.agentId).toBe('fay-a');
    });
  });
}

suite('in-process', async () => new MemoryDirectory());

describe.skipIf(!NatsServerProcess.binaryAvailable())('on NATS', () => {
  const store = mkdtempSync(join(tmpdir(), 'lore-network-handles-'));
  let server: NatsServerProcess;
  let nc: NatsConnection;
  const dirs: NetworkDirectory[] = [];
  beforeAll(async () => {
    server = new NatsServerProcess(await freePort(), store);
    await server.start();
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    for (const d of dirs) await d.close();
    await nc?.close();
    await server?.kill();
    rmSync(store, { recursive: true, force: true });
  });
  suite('JetStream KV', async () => {
    const d = await NatsDirectory.open(nc, `nh${randomUUID().slice(0, 6)}_`);
    dirs.push(d);
    return d;
  });
});
