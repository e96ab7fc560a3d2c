import {
  type AgentCard,
  type DirectoryTrust,
  type HandleRecord,
  type NetworkDirectory,
  type NodeKeyProof,
  qualifiedHandle,
} from './directory.js';
import { judgeNodeKey, type NodeKeyRecord, NodeKeyRefusedError, NodeKeyTrust } from './node-keys.js';

/** The directory of one process (the all-in-one without NATS, tests). */
export class MemoryDirectory implements NetworkDirectory {
  readonly kind = 'memory' as const;
  private readonly handles = new Map<string, HandleRecord>();
  private readonly nodes = new Map<string, NodeKeyRecord>();
  private readonly trust: NodeKeyTrust;
  private readonly cards = new Map<string, AgentCard>();

  constructor(trust: DirectoryTrust = {}) {
    this.trust = new NodeKeyTrust(trust.networkKey, trust.onRefused, trust.ownNode ? [trust.ownNode] : []);
  }

  async claimHandle(handle: string, record: HandleRecord): Promise<boolean> {
    const held = this.handles.get(handle);
    if (held?.network && !record.network && held.node !== record.node) {
      // Another operator's agent: the local claim wins, that agent is known qualified from now on.
      const moved = qualifiedHandle(handle, held.node);
      this.handles.set(moved, held);
      const card = this.cards.get(handle);
      if (card) {
        this.cards.set(moved, { ...card, handle: moved });
        this.cards.delete(handle);
      }
    } else if (held && held.agentId !== record.agentId) return false;
    this.handles.set(handle, record);
    return true;
  }
  async putNetworkHandle(handle: string, record: HandleRecord): Promise<boolean> {
    const held = this.handles.get(handle);
    if (held && !held.network) return false;
    this.handles.set(handle, { ...record, network: true });
    return true;
  }
  async removeNetworkHandle(handle: string, node: string): Promise<void> {
    const held = this.handles.get(handle);
    if (held?.network && held.node === node) this.handles.delete(handle);
  }
  async releaseHandle(handle: string, agentId: string): Promise<void> {
    if (this.handles.get(handle)?.agentId === agentId) this.handles.delete(handle);
  }
  async lookupHandle(handle: string): Promise<HandleRecord | null> {
    const held = this.handles.get(handle);
    if (held || !handle.includes('@')) return held ?? null;
    const [bare, node] = handle.split('@');
    const plain = this.handles.get(bare!);
    return plain && plain.node === node ? plain : null;
  }
  async listHandles() {
    return [...this.handles].map(([handle, r]) => ({ handle, ...r }));
  }
  async registerNode(nodeId: string, publicKeyPem: string, proof: NodeKeyProof = {}): Promise<void> {
    const record: NodeKeyRecord = { node: nodeId, publicKey: publicKeyPem, ...proof };
    const verdict = judgeNodeKey(this.nodes.get(nodeId) ?? null, record, this.trust.networkKey);
    if (!verdict.ok) throw new NodeKeyRefusedError(verdict.reason);
    this.nodes.set(nodeId, record);
    this.trust.pin(record);
  }
  async replaceNodeKey(nodeId: string, publicKeyPem: string): Promise<void> {
    const record: NodeKeyRecord = { node: nodeId, publicKey: publicKeyPem };
    this.nodes.set(nodeId, record);
    this.trust.pin(record);
  }
  /** Stores a record as is, as a participant writing the bucket directly would. */
  putNodeRecord(record: NodeKeyRecord): void {
    this.nodes.set(record.node, record);
  }
  async nodeKeys(nodeId: string): Promise<string[]> {
    const key = this.trust.believe(this.nodes.get(nodeId) ?? null, nodeId);
    return key ? [key] : [];
  }
  async putAgentCard(card: AgentCard): Promise<void> {
    this.cards.set(card.handle, { ...card });
  }
  async removeAgentCard(handle: string): Promise<void> {
    this.cards.delete(handle);
  }
  async agentCards(): Promise<AgentCard[]> {
    return [...this.cards.values()].map((c) => ({ ...c }));
  }
  async close(): Promise<void> {}
}
