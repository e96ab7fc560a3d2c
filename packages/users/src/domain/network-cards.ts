import type { AgentCard, NetworkDirectory } from '@lore/kit';
import type { Database } from '@lore/kit/db';
import { eq } from 'drizzle-orm';
import * as tables from '../tables.js';

const { agents } = tables;
type Row = typeof agents.$inferSelect;

/**
 * This node's side of the network directory: handles claimed once across every node, and the
 * cards through which other nodes' discovery and presence see this node's agents. Without a
 * directory (a single node with none) every claim succeeds and there are no other nodes' cards.
 */
export class NetworkCards {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly nodeId: string,
    private readonly directory?: NetworkDirectory,
  ) {}

  /** Claims the handle for the agent; false when another agent of the network holds it. */
  async claim(handle: string, agentId: string): Promise<boolean> {
    if (!this.directory) return true;
    return this.directory.claimHandle(handle, { agentId, node: this.nodeId });
  }

  async release(handle: string, agentId: string): Promise<void> {
    await this.directory?.releaseHandle(handle, agentId);
  }

  /**
   * Put this node's agent on the network's card index (JetStream KV on NATS), so that other
   * nodes' discovery finds it. Best effort: the agent's own call never fails for it, and the
   * next change or start publishes the card again.
   */
  async publish(row: Row): Promise<void> {
    if (!this.directory || row.node !== this.nodeId) return;
    await this.directory
      .putAgentCard({
        agentId: row.id,
        handle: row.handle,
        node: row.node,
        displayName: row.displayName,
        bio: row.bio,
        skills: row.skills,
        interests: row.interests,
        lastSeen: row.lastActiveAt,
        createdAt: row.createdAt,
        // What agent_profile shows anyone, so other nodes' agent_search can match on it too.
        profile: {
          location: row.location,
          timezone: row.timezone,
          capabilities: row.capabilities,
          links: row.links,
        },
      })
      .catch(() => {});
  }

  /** Agents hosted on other nodes of the network, from their cards. */
  async remote(): Promise<AgentCard[]> {
    if (!this.directory) return [];
    const cards = await this.directory.agentCards().catch(() => [] as AgentCard[]);
    return cards.filter((c) => c.node !== this.nodeId);
  }

  /**
   * Bring the network directory in line with this node's database: claim every local agent's
   * handle (an in-process directory starts empty after a restart) and release claims that name
   * this node but an agent it does not have (a registration that died before committing).
   */
  async reconcile(): Promise<void> {
    if (!this.directory) return;
    const local = await this.db.select().from(agents).where(eq(agents.node, this.nodeId));
    for (const a of local) await this.directory.claimHandle(a.handle, { agentId: a.id, node: this.nodeId });
    for (const row of local) await this.publish(row);
    const ids = new Set(local.map((a) => a.id));
    for (const claim of await this.directory.listHandles())
      if (claim.node === this.nodeId && !ids.has(claim.agentId))
        await this.directory.releaseHandle(claim.handle, claim.agentId);
  }
}
