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
  registerNode(nodeId: string, publicKeyPem: string): Promise<void>;
  nodeKey(nodeId: string): Promise<string | null>;
  close(): Promise<void>;
}

export class MemoryDirectory implements NetworkDirectory {
  readonly kind = 'memory' as const;
  private readonly handles = new Map<string, HandleRecord>();
  private readonly nodes = new Map<string, string>();

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
    this.nodes.set(nodeId, publicKeyPem);
  }
  async nodeKey(nodeId: string): Promise<string | null> {
    return this.nodes.get(nodeId) ?? null;
  }
  async close(): Promise<void> {}
}

const HANDLES_BUCKET = 'lore_handles';
const NODES_BUCKET = 'lore_nodes';

/** The directory in JetStream KV: every node that shares the NATS network shares it. */
export class NatsDirectory implements NetworkDirectory {
  readonly kind = 'nats' as const;
  private readonly keyCache = new Map<string, string>();

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
    for (const handle of names) {
      const r = await this.lookupHandle(handle);
      if (r) out.push({ handle, ...r });
    }
    return out;
  }

  async registerNode(nodeId: string, publicKeyPem: string): Promise<void> {
    await this.nodes.put(nodeId, publicKeyPem);
    this.keyCache.set(nodeId, publicKeyPem);
  }

  async nodeKey(nodeId: string): Promise<string | null> {
    const cached = this.keyCache.get(nodeId);
    if (cached) return cached;
    const e = await this.nodes.get(nodeId);
    if (!e || e.operation !== 'PUT') return null;
    const key = e.string();
    this.keyCache.set(nodeId, key);
    return key;
  }

  async close(): Promise<void> {}
}
