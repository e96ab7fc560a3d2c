import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeIdentity, rotateNodeIdentity } from '../node.js';
import { NATS_URL, reachable } from '../testing/nats.js';
import { type DirectoryTrust, NatsDirectory, type NetworkDirectory } from './directory.js';
import { MemoryDirectory } from './memory-directory.js';
import { createNetworkKey, endorseNodeKey, NodeKeyRefusedError } from './node-keys.js';
import { EnvelopeSigner, verifyEnvelope } from './signing.js';

const identity = (id: string): NodeIdentity => {
  const k = createNetworkKey();
  return { id, publicKey: k.publicKey, privateKey: k.privateKey };
};

const envelope = (node: string) => ({
  id: randomUUID(),
  subject: 'lore.queries.answer.shared',
  occurredAt: new Date(0).toISOString(),
  producer: { service: 'queries', node },
  payload: { text: 'hello' },
});

const natsUp = await reachable(NATS_URL);

type Open = (trust?: DirectoryTrust) => Promise<NetworkDirectory>;

function suite(name: string, open: Open) {
  describe(`node keys in the ${name} directory`, () => {
    it('pins the first key of a node and refuses a replacement, which cannot sign for the node', async () => {
      const refused: string[] = [];
      const dir = await open({ onRefused: (node, reason) => refused.push(`${node}: ${reason}`) });
      const victim = identity(`victim-${randomUUID().slice(0, 6)}`);
      await dir.registerNode(victim.id, victim.publicKey);
      expect(await dir.nodeKeys(victim.id)).toEqual([victim.publicKey]);

      const forger = { ...identity('x'), id: victim.id };
      await expect(dir.registerNode(forger.id, forger.publicKey)).rejects.toBeInstanceOf(NodeKeyRefusedError);
      const forged = new EnvelopeSigner(forger).sign(envelope(victim.id));
      expect(await verifyEnvelope(forged, dir)).toEqual({ ok: false, reason: 'bad signature' });
      const genuine = new EnvelopeSigner(victim).sign(envelope(victim.id));
      expect((await verifyEnvelope(genuine, dir)).ok).toBe(true);
    });

    it('moves to a new key along a rotation signed by the old one', async () => {
      const dir = await open();
      const before = identity(`rot-${randomUUID().slice(0, 6)}`);
      await dir.registerNode(before.id, before.publicKey);
      expect((await verifyEnvelope(new EnvelopeSigner(before).sign(envelope(before.id)), dir)).ok).toBe(true);
      const after = rotateNodeIdentity(before);
      await dir.registerNode(after.id, after.publicKey, { rotatedFrom: after.rotatedFrom });
      expect(await dir.nodeKeys(after.id, { fresh: true })).toEqual([after.publicKey]);
      expect((await verifyEnvelope(new EnvelopeSigner(after).sign(envelope(after.id)), dir)).ok).toBe(true);
      // A rotation statement signed by anyone else is refused.
      const rogue = identity(after.id);
      const fake = rotateNodeIdentity(rogue);
      await expect(
        dir.registerNode(after.id, fake.publicKey, {
          rotatedFrom: { ...fake.rotatedFrom!, publicKey: after.publicKey },
        }),
      ).rejects.toThrow(/rotation signed by it/);
    });

    it('with a network key, believes only endorsed keys', async () => {
      const network = createNetworkKey();
      const dir = await open({ networkKey: network.publicKey });
      const node = identity(`net-${randomUUID().slice(0, 6)}`);
      await expect(dir.registerNode(node.id, node.publicKey)).rejects.toThrow(
        /not endorsed by the network key/,
      );
      // An endorsement of another node's id does not carry over.
      const elsewhere = endorseNodeKey(network.privateKey, 'another-node', node.publicKey);
      await expect(dir.registerNode(node.id, node.publicKey, { endorsement: elsewhere })).rejects.toThrow(
        /not endorsed/,
      );
      const endorsement = endorseNodeKey(network.privateKey, node.id, node.publicKey);
      await dir.registerNode(node.id, node.publicKey, { endorsement });
      expect(await dir.nodeKeys(node.id, { fresh: true })).toEqual([node.publicKey]);
      const other = createNetworkKey();
      const selfMade = endorseNodeKey(other.privateKey, node.id, node.publicKey);
      await expect(dir.registerNode(node.id, node.publicKey, { endorsement: selfMade })).rejects.toThrow(
        /not endorsed/,
      );
    });
  });
}

suite('in-process', async (trust) => new MemoryDirectory(trust));

describe.skipIf(!natsUp && !process.env.CI)('on NATS', () => {
  const prefix = `nk${randomUUID().slice(0, 8)}_`;
  const conns: NatsConnection[] = [];
  const dirs: NetworkDirectory[] = [];
  beforeAll(async () => {
    conns.push(await connect({ servers: NATS_URL }));
  });
  afterAll(async () => {
    for (const d of dirs) await d.close();
    const jsm = await jetstreamManager(conns[0]!);
    for (const bucket of ['lore_handles', 'lore_nodes', 'lore_agents'])
      await jsm.streams.delete(`KV_${prefix}${bucket}`).catch(() => {});
    for (const c of conns) await c.close();
  });
  suite('JetStream KV', async (trust) => {
    const d = await NatsDirectory.open(conns[0]!, prefix, 1, trust);
    dirs.push(d);
    return d;
  });

  it('a reader keeps the pinned key when the bucket is overwritten directly', async () => {
    const refused: string[] = [];
    const reader = await NatsDirectory.open(conns[0]!, prefix, 1, { onRefused: (n) => refused.push(n) });
    dirs.push(reader);
    const node = identity(`pin-${randomUUID().slice(0, 6)}`);
    const writer = await NatsDirectory.open(conns[0]!, prefix);
    dirs.push(writer);
    await writer.registerNode(node.id, node.publicKey);
    expect(await reader.nodeKeys(node.id, { fresh: true })).toEqual([node.publicKey]);
    // What a participant with write access to the bucket could do: replace the record outright.
    const { Kvm } = await import('@nats-io/kv');
    const kv = await new Kvm(conns[0]!).open(`${prefix}lore_nodes`);
    const forger = identity(node.id);
    await kv.put(node.id, JSON.stringify({ node: node.id, publicKey: forger.publicKey }));
    expect(await reader.nodeKeys(node.id, { fresh: true })).toEqual([node.publicKey]);
    expect(refused).toEqual([node.id]);
    const forged = new EnvelopeSigner(forger).sign(envelope(node.id));
    expect((await verifyEnvelope(forged, reader)).ok).toBe(false);
  });
});
