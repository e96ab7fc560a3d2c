/**
 * A node's announcements on `lore.net.dir.<node>`: signed by the node, read and checked by every
 * other, and mirrored into the local directory.
 */
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { NodeIdentity } from '../node.js';
import { type NetworkDirectory, qualifiedHandle } from './directory.js';
import type { Announcement, Refusal } from './federation-types.js';
import { canonical } from './signing.js';

const announcementBytes = (a: Omit<Announcement, 'signature'>) =>
  Buffer.from(`lore-announcement\n${canonical(a)}`);

/** An announcement signed with the node's key. */
export function signAnnouncement(
  body: Omit<Announcement, 'signature'>,
  node: Pick<NodeIdentity, 'privateKey'>,
): Announcement {
  const signature = sign(null, announcementBytes(body), createPrivateKey(node.privateKey));
  return { ...body, signature: signature.toString('base64') };
}

/** Node `node`'s announcement at `at`: its key and the agents it hosts (with their public cards), signed. */
export async function buildAnnouncement(
  directory: NetworkDirectory,
  node: NodeIdentity,
  at: number,
  hello: boolean,
): Promise<Announcement> {
  const handles = (await directory.listHandles()).filter((h) => h.node === node.id && !h.network);
  const cards = new Map(
    (await directory.agentCards()).filter((c) => c.node === node.id).map((c) => [c.handle, c]),
  );
  const body: Omit<Announcement, 'signature'> = {
    node: node.id,
    publicKey: node.publicKey,
    ...(node.rotatedFrom ? { rotatedFrom: node.rotatedFrom } : {}),
    ...(node.endorsement ? { endorsement: node.endorsement } : {}),
    at,
    agents: handles
      .map((h) => ({ handle: h.handle, agentId: h.agentId, card: cards.get(h.handle) ?? null }))
      .sort((a, b) => (a.handle < b.handle ? -1 : 1)),
    ...(hello ? { hello: true } : {}),
  };
  return signAnnouncement(body, node);
}

export type ReadAnnouncement =
  | { ok: true; announcement: Announcement }
  | { ok: false; reason: Refusal; detail: string };

/**
 * The announcement `data` holds, if it is one, from node `from`, signed by the key it carries.
 * Whether that key is the node's is the directory's to judge (`registerNode`).
 */
export function readAnnouncement(data: Uint8Array, from: string): ReadAnnouncement {
  let a: Announcement;
  try {
    a = JSON.parse(new TextDecoder().decode(data)) as Announcement;
    if (typeof a?.publicKey !== 'string' || typeof a.signature !== 'string' || !Array.isArray(a.agents))
      throw new Error('shape');
  } catch {
    return { ok: false, reason: 'unreadable', detail: 'not an announcement' };
  }
  if (a.node !== from)
    return { ok: false, reason: 'not-from-sender', detail: `announces ${a.node}, sent by ${from}` };
  const { signature, ...body } = a;
  let signed = false;
  try {
    signed = verify(
      null,
      announcementBytes(body),
      createPublicKey(a.publicKey),
      Buffer.from(signature, 'base64'),
    );
  } catch {}
  if (!signed)
    return { ok: false, reason: 'bad-signature', detail: 'announcement not signed by the key it carries' };
  return { ok: true, announcement: a };
}

/** The local directory's view of node `from`'s agents becomes what it announced. */
export async function mirrorAgents(
  dir: NetworkDirectory,
  from: string,
  agents: Announcement['agents'],
): Promise<void> {
  const before = (await dir.listHandles()).filter((h) => h.network && h.node === from);
  const kept = new Set<string>();
  for (const agent of agents) {
    if (typeof agent?.handle !== 'string' || typeof agent.agentId !== 'string') continue;
    const bare = agent.handle.split('@')[0]!;
    const record = { agentId: agent.agentId, node: from };
    // Plain where the handle is free (or already this agent's); qualified where it collides.
    const held = await dir.lookupHandle(bare);
    const plainOk = !held || (held.network && held.node === from && held.agentId === agent.agentId);
    const stored = plainOk ? bare : qualifiedHandle(bare, from);
    if (!(await dir.putNetworkHandle(stored, record))) continue;
    kept.add(stored);
    if (agent.card)
      await dir.putAgentCard({ ...agent.card, handle: stored, node: from, agentId: agent.agentId });
  }
  for (const h of before)
    if (!kept.has(h.handle)) {
      await dir.removeNetworkHandle(h.handle, from);
      await dir.removeAgentCard(h.handle);
    }
}

/** Per-peer token bucket: what the hub cannot limit (a message rate), the receiving node does. */
export class PeerRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {}
  take(peer: string): boolean {
    const t = this.now();
    const b = this.buckets.get(peer) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) * this.perMinute) / 60_000);
    b.at = t;
    this.buckets.set(peer, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
