import type { HandleRecord, Logger, NetworkDirectory, SignedEnvelope } from '@lore/kit';
import { qualifiedHandle, verifyEnvelope } from '@lore/kit';

export type DropReason =
  | 'unsigned'
  | 'bad-signature'
  | 'unknown-node'
  | 'signer-not-producer'
  | 'wrong-service'
  | 'sender-not-hosted-by-signer'
  | 'unsolicited';

/**
 * `handle`: the sender as this node names it: its bare handle, or `handle@node` where another
 * agent holds the bare one here (another operator's agent of the same name).
 */
export type CheckOutcome = { ok: true; node: string; handle: string } | { ok: false; reason: DropReason };

/**
 * Who is where on the network, and whether an envelope from another node can be believed:
 * its signature must check out against the signing node's key, and the agent it speaks for
 * must be hosted by that node.
 */
export class Network {
  constructor(
    private readonly directory: NetworkDirectory,
    readonly nodeId: string,
    private readonly onDrop: (reason: DropReason) => void,
    private readonly log: Logger,
  ) {}

  async lookup(handle: string): Promise<HandleRecord | null> {
    return this.directory.lookupHandle(handle);
  }

  /** The handles' records; `missing` lists the handles nobody holds. */
  async resolve(
    handles: string[],
  ): Promise<{ found: Array<{ handle: string } & HandleRecord>; missing: string[] }> {
    const records = await Promise.all(
      handles.map(async (handle) => ({ handle, record: await this.lookup(handle) })),
    );
    return {
      found: records.flatMap((r) => (r.record ? [{ handle: r.handle, ...r.record }] : [])),
      missing: records.filter((r) => !r.record).map((r) => r.handle),
    };
  }

  async everyoneExcept(agentId: string): Promise<Array<{ handle: string } & HandleRecord>> {
    const all = await this.directory.listHandles();
    return all.filter((a) => a.agentId !== agentId).sort((a, b) => (a.handle < b.handle ? -1 : 1));
  }

  /** True when this node hosts the agent (the directory is the authority, not the envelope). */
  async hostedHere(handle: string, agentId: string): Promise<boolean> {
    const r = await this.lookup(handle);
    return r?.agentId === agentId && r.node === this.nodeId;
  }

  /** Signature valid, produced by the expected service, and the sender agent hosted by the signer. */
  async check(
    envelope: SignedEnvelope,
    sender: { handle: string; id: string },
    service = 'queries',
  ): Promise<CheckOutcome> {
    const v = await verifyEnvelope(envelope, this.directory);
    if (!v.ok) return this.refuse(envelope, reasonOf(v.reason), v.reason);
    if (envelope.producer.service !== service)
      return this.refuse(envelope, 'wrong-service', envelope.producer.service);
    // Qualified by the signing node: another operator's node may host an agent of the same handle.
    const held = await this.lookup(
      sender.handle.includes('@') ? sender.handle : `${sender.handle}@${v.node}`,
    );
    if (!held || held.agentId !== sender.id || held.node !== v.node)
      return this.refuse(
        envelope,
        'sender-not-hosted-by-signer',
        `@${sender.handle} is not hosted by ${v.node}`,
      );
    return { ok: true, node: v.node, handle: await this.nameOf(sender, v.node) };
  }

  /**
   * How this node names agent `agent` of node `node`: the bare handle when it is that agent's
   * here, else qualified, so that a remote agent never shows under a local agent's handle.
   */
  async nameOf(agent: { handle: string; id: string }, node: string): Promise<string> {
    const bare = agent.handle.split('@')[0]!;
    const plain = await this.lookup(bare);
    return plain?.agentId === agent.id && plain.node === node ? bare : qualifiedHandle(bare, node);
  }

  /** Count and log an envelope that is refused. */
  drop(envelope: SignedEnvelope, reason: DropReason, detail = ''): void {
    this.onDrop(reason);
    this.log.warn(
      { eventId: envelope.id, subject: envelope.subject, producer: envelope.producer, reason, detail },
      'envelope dropped',
    );
  }

  private refuse(envelope: SignedEnvelope, reason: DropReason, detail: string): CheckOutcome {
    this.drop(envelope, reason, detail);
    return { ok: false, reason };
  }
}

function reasonOf(verifyReason: string): DropReason {
  if (verifyReason === 'unsigned') return 'unsigned';
  if (verifyReason.startsWith('unknown node')) return 'unknown-node';
  if (verifyReason.startsWith('signer is not')) return 'signer-not-producer';
  return 'bad-signature';
}
