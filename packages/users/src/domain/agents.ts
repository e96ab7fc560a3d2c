import { randomUUID } from 'node:crypto';
import { type AgentCard, conflict, generateApiKey, hashApiKey, type NetworkDirectory } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import type { AgentProfile, AgentRegisterInput, AgentUpdateInput, VerifiedAgent } from '@lore/schema/users';
import { AgentKeyRotated, AgentRegistered, AgentUpdated } from '@lore/schema/users';
import { fuseRankings } from '@lore/search';
import { and, desc, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import * as tables from '../tables.js';
import { fitAgent, rankAgents, type SearchCriteria, type SearchFit } from './agent-search.js';
import { HotReads, type ProfileView } from './hot-reads.js';
import type { AgentMeaning } from './meaning.js';
import { NetworkCards } from './network-cards.js';
import { mergeCapabilities, NO_CAPABILITIES, normalizeSkills, normalizeTags, toProfile } from './profile.js';
import { cardProfile } from './search.js';

const { agents, apiKeys, sourceTopics } = tables;
type Row = typeof agents.$inferSelect;

export type { SearchCriteria } from './agent-search.js';

/** The users service's storage: agents, their keys, what they did, what they know about. */
export class AgentRepository {
  private readonly hot: HotReads;
  private readonly cards: NetworkCards;
  /** Profiles found by meaning (none: agent_search is lexical). */
  meaning: AgentMeaning | null = null;

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly nodeId: string,
    private readonly now: () => number = Date.now,
    directory?: NetworkDirectory,
  ) {
    this.hot = new HotReads(db);
    this.cards = new NetworkCards(db, nodeId, directory);
  }

  async register(input: AgentRegisterInput): Promise<{ profile: AgentProfile; apiKey: string }> {
    const apiKey = generateApiKey();
    const t = this.now();
    const row: Row = {
      id: randomUUID(),
      handle: input.username,
      email: input.email,
      displayName: input.displayName,
      bio: input.bio ?? '',
      skills: normalizeSkills(input.skills ?? []),
      interests: normalizeTags(input.interests ?? []),
      location: input.location ?? null,
      timezone: input.timezone ?? null,
      capabilities: mergeCapabilities(NO_CAPABILITIES, input.capabilities),
      links: { ...input.links },
      node: this.nodeId,
      createdAt: t,
      lastActiveAt: t,
    };
    // A handle is claimed once across every node that shares the network.
    if (!(await this.cards.claim(row.handle, row.id)))
      throw conflict(`Username '${input.username}' is already taken.`, { field: 'username' });
    try {
      await this.outbox.transaction(async (tx, emit) => {
        await tx.insert(agents).values(row);
        await tx.insert(apiKeys).values({ keyHash: hashApiKey(apiKey), agentId: row.id, createdAt: t });
        emit(AgentRegistered, {
          agentId: row.id,
          handle: row.handle,
          displayName: row.displayName,
          node: row.node,
        });
      });
    } catch (err) {
      await this.cards.release(row.handle, row.id);
      if (isUniqueViolation(err))
        throw conflict(`Username '${input.username}' is already taken.`, { field: 'username' });
      throw err;
    }
    await this.publishCard(row);
    this.meaning?.refresh([row]);
    return { profile: toProfile(row), apiKey };
  }

  /** Publishes the agent's card to the network (best effort; see NetworkCards). */
  async publishCard(row: Row): Promise<void> {
    await this.cards.publish(row);
  }

  /** Agents hosted on other nodes of the network, from their cards. */
  async remoteCards(): Promise<AgentCard[]> {
    return this.cards.remote();
  }

  async byHandle(handle: string): Promise<Row | undefined> {
    return this.hot.agentByHandle(handle);
  }

  async byId(id: string): Promise<Row | undefined> {
    return this.hot.agentById(id);
  }

  /**
   * What agent_profile shows of the agent with this handle: the agent, its recent activity, its
   * connections and, when the viewer is the agent, the requests waiting for its answer.
   */
  async profileView(handle: string, viewerId: string, recentLimit = 5): Promise<ProfileView | undefined> {
    return this.hot.profileView(handle, viewerId, recentLimit);
  }

  async byHandleOrId(ref: string): Promise<Row | undefined> {
    return (await this.byHandle(ref.toLowerCase())) ?? (await this.byId(ref));
  }

  async update(
    agentId: string,
    patch: AgentUpdateInput,
  ): Promise<{ profile: AgentProfile; changed: string[] }> {
    const result = await this.outbox.transaction(async (tx, emit) => {
      const [current] = await tx.select().from(agents).where(eq(agents.id, agentId)).limit(1);
      if (!current) throw new Error(`agent ${agentId} vanished`);
      const next: Partial<Row> = {};
      if (patch.displayName !== undefined) next.displayName = patch.displayName;
      if (patch.bio !== undefined) next.bio = patch.bio;
      if (patch.skills !== undefined) next.skills = normalizeSkills(patch.skills);
      if (patch.interests !== undefined) next.interests = normalizeTags(patch.interests);
      if (patch.location !== undefined) next.location = patch.location || null;
      if (patch.timezone !== undefined) next.timezone = patch.timezone;
      if (patch.capabilities !== undefined)
        next.capabilities = mergeCapabilities(current.capabilities, patch.capabilities);
      if (patch.links !== undefined) next.links = { ...current.links, ...patch.links };
      const changed = Object.keys(next).filter(
        (k) => JSON.stringify(next[k as keyof Row]) !== JSON.stringify(current[k as keyof Row]),
      );
      if (changed.length) {
        await tx.update(agents).set(next).where(eq(agents.id, agentId));
        emit(AgentUpdated, { agentId, handle: current.handle, changed });
      }
      return { profile: toProfile({ ...current, ...next }), changed, row: { ...current, ...next } };
    });
    if (result.changed.length) {
      await this.publishCard(result.row);
      this.meaning?.refresh([result.row]);
    }
    return { profile: result.profile, changed: result.changed };
  }

  /** Replaces every live key of the agent with a new one; the old ones stop working at once. */
  async rotateKey(agentId: string, handle: string): Promise<{ apiKey: string; rotatedAt: string }> {
    const apiKey = generateApiKey();
    const t = this.now();
    await this.outbox.transaction(async (tx, emit) => {
      const live = await tx
        .select({ keyHash: apiKeys.keyHash })
        .from(apiKeys)
        .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)));
      await tx
        .update(apiKeys)
        .set({ revokedAt: t })
        .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)));
      await tx.insert(apiKeys).values({ keyHash: hashApiKey(apiKey), agentId, createdAt: t });
      for (const k of live) emit(AgentKeyRotated, { agentId, handle, revokedKeyHash: k.keyHash });
    });
    // Every process drops the old key from its cache when this event reaches it: send it now.
    await this.outbox.flush().catch(() => {});
    return { apiKey, rotatedAt: new Date(t).toISOString() };
  }

  /** Key verification for every service; also how presence is learned. */
  async verifyKey(keyHash: string): Promise<VerifiedAgent | null> {
    const r = await this.hot.liveKey(keyHash);
    if (!r) return null;
    const t = this.now();
    // Presence needs minute resolution, not a write per call.
    if (!r.lastActiveAt || t - r.lastActiveAt > 30_000) await this.touch(r.id, t);
    return { id: r.id, handle: r.handle, node: r.node };
  }

  async touch(agentId: string, at: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx
        .update(agents)
        .set({ lastActiveAt: at })
        .where(and(eq(agents.id, agentId), or(isNull(agents.lastActiveAt), lt(agents.lastActiveAt, at))));
    });
    // Presence is shared with the other nodes (at most once per 30 s per agent, as the write).
    const row = await this.byId(agentId);
    if (row) await this.publishCard(row);
  }

  async resolve(handles: string[]): Promise<{ agents: VerifiedAgent[]; missing: string[] }> {
    const wanted = [...new Set(handles.map((h) => h.replace(/^@/, '').toLowerCase()))];
    const found: VerifiedAgent[] = [];
    for (let i = 0; i < wanted.length; i += 500) {
      const part = wanted.slice(i, i + 500);
      found.push(
        ...(await this.db
          .select({ id: agents.id, handle: agents.handle, node: agents.node })
          .from(agents)
          .where(inArray(agents.handle, part))),
      );
    }
    const have = new Set(found.map((a) => a.handle));
    return { agents: found, missing: wanted.filter((h) => !have.has(h)) };
  }

  /** Claims every local agent's handle and card on the network, and drops this node's stale claims. */
  async reconcileDirectory(): Promise<void> {
    await this.cards.reconcile();
  }

  async listAll(excludeId?: string): Promise<VerifiedAgent[]> {
    const rows = await this.db
      .select({ id: agents.id, handle: agents.handle, node: agents.node })
      .from(agents);
    return excludeId ? rows.filter((r) => r.id !== excludeId) : rows;
  }

  /**
   * Agents meeting every criterion, best fit first (see `rankAgents`), with why: this node's and
   * other nodes' (from their cards, marked with their node). A handle seen twice counts once.
   * A free-text `query` also finds, by meaning, agents whose profile says it in other words
   * (the other criteria still all apply); the two rankings are fused (reciprocal rank fusion).
   */
  async search(c: SearchCriteria): Promise<{
    agents: Array<{ profile: AgentProfile; fit: SearchFit & { foundBy?: Array<'words' | 'meaning'> } }>;
    total: number;
  }> {
    const [rows, remote] = await Promise.all([
      this.db.select().from(agents).orderBy(desc(agents.lastActiveAt), agents.handle),
      this.remoteCards(),
    ]);
    const seen = new Set<string>();
    const profiles = [...rows.map(toProfile), ...remote.map(cardProfile)].filter((p) => {
      if (seen.has(p.username)) return false;
      seen.add(p.username);
      return true;
    });
    const searchable = profiles.map((p) => ({ ...p, handle: p.username }));
    this.meaning?.refresh(searchable);
    const ranked = rankAgents(searchable, c);
    const near = c.query?.trim() ? await this.meaning?.profiles(c.query) : null;
    type Hit = {
      agent: (typeof searchable)[number];
      fit: SearchFit & { foundBy?: Array<'words' | 'meaning'> };
    };
    let hits: Hit[] = ranked;
    if (near) {
      const byWords = new Map(ranked.map((r) => [r.agent.id, r]));
      const byMeaning = new Map<string, Hit>();
      const rest: SearchCriteria = { ...c, query: undefined };
      const others = Object.values({ ...rest, limit: undefined, offset: undefined }).some(
        (v) => v !== undefined && (!Array.isArray(v) || v.length > 0),
      );
      for (const a of searchable) {
        const similarity = near.get(a.id);
        if (similarity === undefined) continue;
        const fit = fitAgent(a, rest);
        if (!fit) continue;
        const byMeaningScore = Math.round(100 * Math.min(1, similarity));
        const why = `profile close in meaning to "${c.query!.trim()}" (similarity ${similarity.toFixed(2)})`;
        byMeaning.set(a.id, {
          agent: a,
          fit: {
            score: others ? Math.round((fit.score + byMeaningScore) / 2) : byMeaningScore,
            matched: fit.matched,
            why: others ? `${fit.why}; ${why}` : why,
          },
        });
      }
      const order = [...byMeaning.keys()].sort((x, y) => near.get(y)! - near.get(x)!);
      hits = fuseRankings([
        { signal: 'words', ids: ranked.map((r) => r.agent.id) },
        { signal: 'meaning', ids: order },
      ]).map((f) => {
        const h = byWords.get(f.id) ?? byMeaning.get(f.id)!;
        return { agent: h.agent, fit: { ...h.fit, foundBy: f.signals as Array<'words' | 'meaning'> } };
      });
    } else if (c.query?.trim()) hits = ranked.map((r) => ({ ...r, fit: { ...r.fit, foundBy: ['words'] } }));
    return {
      agents: hits.slice(c.offset, c.offset + c.limit).map(({ agent: { handle: _, ...profile }, fit }) => ({
        profile: profile as AgentProfile,
        fit,
      })),
      total: hits.length,
    };
  }

  /** The network's agents (this node's and other nodes' cards), split by whether they were seen within the window (the caller always is). */
  async activeSplit(
    windowMs: number,
    callerId?: string,
  ): Promise<{ active: Presence[]; inactive: Presence[] }> {
    const since = this.now() - windowMs;
    const rows = await this.db
      .select({ id: agents.id, handle: agents.handle, node: agents.node, last: agents.lastActiveAt })
      .from(agents)
      .orderBy(agents.handle);
    const active: Presence[] = [];
    const inactive: Presence[] = [];
    const local = new Set(rows.map((r) => r.handle));
    const remote = (await this.remoteCards())
      .filter((c) => !local.has(c.handle))
      .map((c) => ({ id: c.agentId, handle: c.handle, node: c.node, last: c.lastSeen }));
    for (const r of [...rows, ...remote].sort((a, b) => (a.handle < b.handle ? -1 : 1))) {
      const p = { handle: r.handle, node: r.node, lastSeen: r.last };
      // The caller is calling right now, whatever the presence write (at most one per 30 s) says.
      (r.id === callerId || (r.last !== null && r.last >= since) ? active : inactive).push(p);
    }
    return { active, inactive };
  }

  async countActiveSince(since: number): Promise<number> {
    const r = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(agents)
      .where(gte(agents.lastActiveAt, since));
    return Number(r[0]?.n ?? 0);
  }

  /** The agent's sources shared auto: the only ones others may hear about. */
  async publicSources(agentId: string) {
    return this.db
      .select({ source: sourceTopics.source, summary: sourceTopics.summary })
      .from(sourceTopics)
      .where(and(eq(sourceTopics.agentId, agentId), eq(sourceTopics.sharing, 'auto')))
      .orderBy(desc(sourceTopics.updatedAt));
  }
}

function isUniqueViolation(err: unknown): boolean {
  const msg = String(
    (err as { message?: string; cause?: { message?: string } })?.cause?.message ?? (err as Error)?.message,
  );
  return /UNIQUE constraint failed/i.test(msg);
}

/** Where and when an agent was last seen. */
export interface Presence {
  handle: string;
  node: string;
  lastSeen: number | null;
}
