import { createHash } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

export interface HandleRecord {
  agentId: string;
  node: string;
}

/**
 * Who is where on the network: which node hosts each handle (a handle is claimed once across
 * every node), and each node's public signing key.
 */
export interface NetworkDirectory {
  readonly kind: 'memory' | 'nats';
  /** Claim a handle for an agent; false when another agent already holds it. */
  claimHandle(handle: string, record: HandleRecord): Promise<boolean>;
  releaseHandle(handle: string, agentId: string): Promise<void>;
  lookupHandle(handle: string): Promise<HandleRecord | null>;
  /** Every claimed handle on the network. */
  listHandles(): Promise<Array<{ handle: string } & HandleRecord>>;
  /** Add a signing key for a node (each process of a node may hold its own). */
  registerNode(nodeId: string, publicKeyPem: string): Promise<void>;
  /** Every public key the node's processes sign with. */
  nodeKeys(nodeId: string, options?: { fresh?: boolean }): Promise<string[]>;
  close(): Promise<void>;
}

export class MemoryDirectory implements NetworkDirectory {
  readonly kind = 'memory' as const;
  private readonly handles = new Map<string, HandleRecord>();
  private readonly nodes = new Map<string, Set<string>>();

  async claimHandle(handle: string, record: HandleRecord): Promise<boolean> {
    const held = this.handles.get(handle);
    if (held && held.agentId !== record.agentId) return false;
    this.handles.set(handle, record);
    return true;
  }
  async releaseHandle(handle: string, agentId: string): Promise<void> {
    if (this.handles.get(handle)?.agentId === agentId) this.handles.delete(handle);
  }
  async lookupHandle(handle: string): Promise<HandleRecord | null> {
    return this.handles.get(handle) ?? null;
  }
  async listHandles() {
    return [...this.handles].map(([handle, r]) => ({ handle, ...r }));
  }
  async registerNode(nodeId: string, publicKeyPem: string): Promise<void> {
    const keys = this.nodes.get(nodeId) ?? new Set<string>();
    keys.add(publicKeyPem);
    this.nodes.set(nodeId, keys);
  }
  async nodeKeys(nodeId: string): Promise<string[]> {
    return [...(this.nodes.get(nodeId) ?? [])];
  }
  async close(): Promise<void> {}
}

const HANDLES_BUCKET = 'lore_handles';
const NODES_BUCKET = 'lore_nodes';

/** The directory in JetStream KV: every node that shares the NATS network shares it. */
export class NatsDirectory implements NetworkDirectory {
  readonly kind = 'nats' as const;
  private readonly keyCache = new Map<string, { keys: string[]; at: number }>();

  private constructor(
    private readonly handles: KV,
    private readonly nodes: KV,
  ) {}

  static async open(nc: NatsConnection, prefix = ''): Promise<NatsDirectory> {
    const kvm = new Kvm(nc);
    const handles = await kvm.create(`${prefix}${HANDLES_BUCKET}`, { history: 1 });
    const nodes = await kvm.create(`${prefix}${NODES_BUCKET}`, { history: 1 });
    return new NatsDirectory(handles, nodes);
  }

  async claimHandle(handle: string, record: HandleRecord): Promise<boolean> {
    try {
      // create() succeeds only when the key is absent (or deleted): the network-wide claim.
      await this.handles.create(handle, JSON.stringify(record));
      return true;
    } catch {
      const held = await this.lookupHandle(handle);
      return held?.agentId === record.agentId;
    }
  }

  async releaseHandle(handle: string, agentId: string): Promise<void> {
    const held = await this.lookupHandle(handle);
    if (held?.agentId === agentId) await this.handles.delete(handle);
  }

  async lookupHandle(handle: string): Promise<HandleRecord | null> {
    const e = await this.handles.get(handle);
    if (!e || e.operation !== 'PUT') return null;
    return e.json<HandleRecord>();
  }

  async listHandles() {
    const out: Array<{ handle: string } & HandleRecord> = [];
    const keys = await this.handles.keys();
    const names: string[] = [];
    for await (const k of keys) names.push(k);
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

  async registerNode(nodeId: string, publicKeyPem: string): Promise<void> {
    // One entry per key: the processes of one node may each hold their own key.
    await this.nodes.put(`${nodeId}.${fingerprint(publicKeyPem)}`, publicKeyPem);
    this.keyCache.delete(nodeId);
  }

  async nodeKeys(nodeId: string, options: { fresh?: boolean } = {}): Promise<string[]> {
    const cached = this.keyCache.get(nodeId);
    if (!options.fresh && cached && cached.at > Date.now() - 30_000) return cached.keys;
    const names: string[] = [];
    for await (const k of await this.nodes.keys(`${nodeId}.*`)) names.push(k);
    const keys: string[] = [];
    for (const name of names) {
      const e = await this.nodes.get(name);
      if (e?.operation === 'PUT') keys.push(e.string());
    }
    this.keyCache.set(nodeId, { keys, at: Date.now() });
    return keys;
  }

  async close(): Promise<void> {}
}

const fingerprint = (pem: string) => createHash('sha256').update(pem).digest('hex').slice(0, 16);
