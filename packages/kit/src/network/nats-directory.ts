import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { DIRECTORY_BUCKETS } from '../bus/jetstream-names.js';
import {
  type AgentCard,
  type DirectoryTrust,
  type HandleRecord,
  handleKey,
  type NetworkDirectory,
  type NodeKeyProof,
  qualifiedHandle,
} from './directory.js';
import { judgeNodeKey, type NodeKeyRecord, NodeKeyRefusedError, NodeKeyTrust } from './node-keys.js';

const keyHandle = (key: string) => key.replace('.', '@');

const [HANDLES_BUCKET, NODES_BUCKET, AGENTS_BUCKET] = DIRECTORY_BUCKETS;

/** A handle's last state seen on the bucket: its record, or null once released. */
interface Replicated {
  record: HandleRecord | null;
  revision: number;
}

type Watch = Awaited<ReturnType<KV['watch']>>;

/** How long `listHandles` waits for the replica's first sync before reading the bucket itself. */
const SYNC_WAIT_MS = 5_000;

/**
 * The directory in JetStream KV: every node that shares the NATS network shares it. Each
 * process keeps a replica of the handles, fed by a KV watch, so that the per-event question
 * "is this agent hosted here?" costs no round trip. A handle the replica has not seen (claimed
 * elsewhere a moment ago) is read from the bucket; a release by another process shows once the
 * watch delivers it, a few milliseconds later.
 */
export class NatsDirectory implements NetworkDirectory {
  readonly kind = 'nats' as const;
  private readonly keyCache = new Map<string, { keys: string[]; at: number }>();
  private readonly trust: NodeKeyTrust;
  private readonly replica = new Map<string, Replicated>();
  private synced = false;
  private onSynced: Array<() => void> = [];
  private watch: Watch | undefined;
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly handles: KV,
    private readonly nodes: KV,
    private readonly agents: KV,
    trust: DirectoryTrust,
  ) {
    this.trust = new NodeKeyTrust(trust.networkKey, trust.onRefused, trust.ownNode ? [trust.ownNode] : []);
  }

  /** `replicas`: copies of each bucket on a JetStream cluster (3 on three servers). */
  static async open(
    nc: NatsConnection,
    prefix = '',
    replicas = 1,
    trust: DirectoryTrust = {},
  ): Promise<NatsDirectory> {
    // Loaded here, not at the top: a process without NATS never loads the KV client.
    const { openBucket } = await import('../bus/provision.js');
    const handles = await openBucket(nc, `${prefix}${HANDLES_BUCKET}`, { replicas });
    const nodes = await openBucket(nc, `${prefix}${NODES_BUCKET}`, { replicas });
    const agents = await openBucket(nc, `${prefix}${AGENTS_BUCKET}`, { replicas });
    const directory = new NatsDirectory(nc, handles, nodes, agents, trust);
    // Not awaited: until the replica has synced, look-ups read the bucket as before.
    void directory.follow();
    return directory;
  }

  async claimHandle(handle: string, record: HandleRecord): Promise<boolean> {
    try {
      // create() succeeds only when the key is absent (or deleted): the network-wide claim.
      const revision = await this.handles.create(handleKey(handle), JSON.stringify(record));
      this.remember(handle, record, revision);
      return true;
    } catch {
      const held = await this.fetchHandle(handle);
      if (held?.record.network && !record.network && held.record.node !== record.node) {
        // Another operator's agent, learned over the network: the local claim wins, and that
        // agent is known by its qualified handle from now on.
        try {
          const revision = await this.handles.update(
            handleKey(handle),
            JSON.stringify(record),
            held.revision,
          );
          this.remember(handle, record, revision);
        } catch {
          return (await this.fetchHandle(handle))?.record.agentId === record.agentId;
        }
        const moved = qualifiedHandle(handle, held.record.node);
        await this.handles.put(handleKey(moved), JSON.stringify(held.record));
        const card = await this.agents.get(handleKey(handle));
        if (card?.operation === 'PUT') {
          await this.agents.put(
            handleKey(moved),
            JSON.stringify({ ...card.json<AgentCard>(), handle: moved }),
          );
          await this.agents.delete(handleKey(handle));
        }
        return true;
      }
      return held?.record.agentId === record.agentId;
    }
  }

  async putNetworkHandle(handle: string, record: HandleRecord): Promise<boolean> {
    const held = await this.fetchHandle(handle);
    if (held && !held.record.network) return false;
    const next = { ...record, network: true };
    if (held && JSON.stringify(held.record) === JSON.stringify(next)) return true;
    const revision = await this.handles.put(handleKey(handle), JSON.stringify(next));
    this.remember(handle, next, revision);
    return true;
  }

  async removeNetworkHandle(handle: string, node: string): Promise<void> {
    const held = await this.fetchHandle(handle);
    if (!held?.record.network || held.record.node !== node) return;
    await this.handles.delete(handleKey(handle));
    this.remember(handle, null, held.revision + 0.5);
  }

  async releaseHandle(handle: string, agentId: string): Promise<void> {
    const held = await this.fetchHandle(handle);
    if (held?.record.agentId !== agentId) return;
    await this.handles.delete(handleKey(handle));
    // The delete's own revision is not returned; anything newer than the claim it removed wins.
    this.remember(handle, null, held.revision + 0.5);
  }

  async lookupHandle(handle: string): Promise<HandleRecord | null> {
    const known = this.replica.get(handle)?.record;
    if (known) return { ...known };
    if (handle.includes('@')) {
      // The usual case (`alice@node-a` for an alice no other node shares) from the replica, without a round trip.
      const [bare, node] = handle.split('@');
      const plain = this.replica.get(bare!)?.record;
      if (plain && plain.node === node) return { ...plain };
    }
    const held = (await this.fetchHandle(handle))?.record ?? null;
    if (held || !handle.includes('@')) return held;
    // `bob@node-b` where nobody else holds `bob`: the plain handle, if node-b's.
    const [bare, node] = handle.split('@');
    const plain = await this.lookupHandle(bare!);
    return plain?.node === node ? plain : null;
  }

  async listHandles() {
    if (await this.whenSynced(SYNC_WAIT_MS)) {
      const out: Array<{ handle: string } & HandleRecord> = [];
      for (const [handle, { record }] of this.replica) if (record) out.push({ handle, ...record });
      return out;
    }
    const out: Array<{ handle: string } & HandleRecord> = [];
    const keys = await this.handles.keys();
    const names: string[] = [];
    for await (const k of keys) names.push(keyHandle(k));
    // Look the records up 64 at a time rather than one round trip after another.
    for (let i = 0; i < names.length; i += 64) {
      const part = names.slice(i, i + 64);
      const records = await Promise.all(part.map((h) => this.lookupHandle(h)));
      records.forEach((r, k) => {
        if (r) out.push({ handle: part[k]!, ...r });
      });
    }
    return out;
  }

  async registerNode(nodeId: string, publicKeyPem: string, proof: NodeKeyProof = {}): Promise<void> {
    const record: NodeKeyRecord = { node: nodeId, publicKey: publicKeyPem, ...proof };
    for (let attempt = 0; ; attempt++) {
      const held = await this.nodeRecord(nodeId);
      const verdict = judgeNodeKey(held?.record ?? null, record, this.trust.networkKey);
      if (!verdict.ok) throw new NodeKeyRefusedError(verdict.reason);
      if (held && JSON.stringify(held.record) === JSON.stringify(record)) return;
      try {
        // Compare-and-set: two writers racing cannot both replace the same record.
        if (held) await this.nodes.update(nodeId, JSON.stringify(record), held.revision);
        else await this.nodes.create(nodeId, JSON.stringify(record));
        this.keyCache.delete(nodeId);
        this.trust.pin(record);
        return;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  }

  async replaceNodeKey(nodeId: string, publicKeyPem: string): Promise<void> {
    const record: NodeKeyRecord = { node: nodeId, publicKey: publicKeyPem };
    await this.nodes.put(nodeId, JSON.stringify(record));
    this.keyCache.delete(nodeId);
    this.trust.pin(record);
  }

  async nodeKeys(nodeId: string, options: { fresh?: boolean } = {}): Promise<string[]> {
    const cached = this.keyCache.get(nodeId);
    if (!options.fresh && cached && cached.at > Date.now() - 30_000) return cached.keys;
    const held = await this.nodeRecord(nodeId);
    const key = this.trust.believe(held?.record ?? null, nodeId);
    const keys = key ? [key] : [];
    this.keyCache.set(nodeId, { keys, at: Date.now() });
    return keys;
  }

  /** The bucket's record of a node's key; a record that is not one is no record. */
  private async nodeRecord(nodeId: string): Promise<{ record: NodeKeyRecord; revision: number } | null> {
    const e = await this.nodes.get(nodeId);
    if (e?.operation !== 'PUT') return null;
    try {
      const record = e.json<NodeKeyRecord>();
      if (typeof record?.publicKey !== 'string' || record.node !== nodeId) return null;
      return { record, revision: e.revision };
    } catch {
      return null;
    }
  }

  async putAgentCard(card: AgentCard): Promise<void> {
    await this.agents.put(handleKey(card.handle), JSON.stringify(card));
  }

  async removeAgentCard(handle: string): Promise<void> {
    await this.agents.delete(handleKey(handle));
  }

  /** Read from the bucket on each call: a change on any node shows at once, with no replica to lag. */
  async agentCards(): Promise<AgentCard[]> {
    const names: string[] = [];
    for await (const k of await this.agents.keys()) names.push(k);
    const out: AgentCard[] = [];
    for (let i = 0; i < names.length; i += 64) {
      const entries = await Promise.all(names.slice(i, i + 64).map((k) => this.agents.get(k)));
      for (const e of entries) {
        if (e?.operation !== 'PUT') continue;
        try {
          out.push(e.json<AgentCard>());
        } catch {
          // A card that is not JSON is nobody's: skip it.
        }
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watch?.stop();
  }

  /** The bucket's current record of a handle, with its revision. */
  private async fetchHandle(handle: string): Promise<{ record: HandleRecord; revision: number } | null> {
    const e = await this.handles.get(handleKey(handle));
    if (e?.operation !== 'PUT') return null;
    return { record: e.json<HandleRecord>(), revision: e.revision };
  }

  /** Keep what the bucket says, unless the replica already holds a newer state of the handle. */
  private remember(handle: string, record: HandleRecord | null, revision: number) {
    const known = this.replica.get(handle);
    if (known && known.revision >= revision) return;
    this.replica.set(handle, { record, revision });
  }

  /** Feed the replica from a watch of the bucket; start again (from scratch) if the watch ends. */
  private async follow(): Promise<void> {
    for (let failures = 0; !this.closed && !this.nc.isClosed(); failures++) {
      let watch: Watch | undefined;
      try {
        watch = await this.handles.watch();
        this.watch = watch;
        if (this.closed) return watch.stop();
        // An empty bucket delivers nothing to wait for.
        if ((await this.handles.status()).values === 0) this.markSynced();
        for await (const e of watch) {
          let record: HandleRecord | null = null;
          if (e.operation === 'PUT') {
            try {
              record = e.json<HandleRecord>();
            } catch {
              record = null;
            }
          }
          this.remember(keyHandle(e.key), record, e.revision);
          // The last of the values that existed when the watch started, or anything after them.
          if (e.isUpdate || e.delta === 0) this.markSynced();
          failures = 0;
        }
      } catch {
        // Dropped below: the replica is rebuilt by the next watch, reads go to the bucket meanwhile.
      } finally {
        watch?.stop();
      }
      // Without its watch the replica would go stale: forget it.
      this.synced = false;
      this.replica.clear();
      if (this.closed || this.nc.isClosed() || this.nc.isDraining()) return;
      await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** failures)).unref?.());
    }
  }

  private markSynced() {
    if (this.synced) return;
    this.synced = true;
    for (const wake of this.onSynced.splice(0)) wake();
  }

  /** True once the replica holds every handle, waiting up to `ms` for it. */
  private async whenSynced(ms: number): Promise<boolean> {
    if (this.synced) return true;
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const synced = await new Promise<boolean>((resolve) => {
      const wake = () => resolve(true);
      this.onSynced.push(wake);
      timer = setTimeout(() => {
        this.onSynced = this.onSynced.filter((w) => w !== wake);
        resolve(false);
      }, ms);
    });
    clearTimeout(timer);
    return synced;
  }
}
