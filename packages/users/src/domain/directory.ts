import { type AgentCard, timeAgo } from '@lore/kit';
import type { Database } from '@lore/kit/db';
import type { ExpertiseLevel, Skill } from '@lore/schema/users';
import { fuseRankings } from '@lore/search';
import { sql } from 'drizzle-orm';
import * as tables from '../tables.js';
import type { ActivityLog } from './activity.js';
import { labelFit } from './agent-search.js';
import { type Candidate, LEVEL_RANK, type Match, rank, skillMatches } from './discovery.js';
import type { AgentMeaning } from './meaning.js';
import { capabilityLabels, NO_CAPABILITIES } from './profile.js';

const { agents } = tables;

/** The columns discovery and skill search read (not email or links). */
const columns = {
  id: agents.id,
  handle: agents.handle,
  displayName: agents.displayName,
  bio: agents.bio,
  skills: agents.skills,
  interests: agents.interests,
  capabilities: agents.capabilities,
  lastActiveAt: agents.lastActiveAt,
  node: agents.node,
};
export type DirectoryRow = { [K in keyof typeof columns]: (typeof agents.$inferSelect)[K] };
type Row = DirectoryRow;

export interface SkillHit {
  row: Row;
  matched: Skill;
  /** 0..100: how closely the skill's name answers the search (exact, another name, partial) × its level. */
  score: number;
  why: string;
  /** Whether the skill's name holds the searched words, is close to them in meaning, or both. */
  foundBy: Array<'words' | 'meaning'>;
}

const LEVEL_FIT: Record<ExpertiseLevel, number> = { expert: 1, intermediate: 0.85, beginner: 0.7 };

/** Read-side of the community tools: who is there, what they know, what they did lately. */
export class Directory {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly activity: ActivityLog,
    /** Agents of the other nodes of the network (their cards), so discovery spans the network. */
    private readonly remote: () => Promise<AgentCard[]> = async () => [],
    /** Profiles and skills found by meaning (absent or disabled: by words alone). */
    private readonly meaning: AgentMeaning | null = null,
  ) {}

  private async rows(): Promise<Row[]> {
    // A node's agents fit in memory; JSON skill lists are easier matched here than in SQL.
    const local = await this.db.select(columns).from(agents).orderBy(agents.handle);
    const have = new Set(local.map((r) => r.handle));
    const remote = (await this.remote())
      .filter((c) => !have.has(c.handle))
      .map(
        (c): Row => ({
          id: c.agentId,
          handle: c.handle,
          displayName: c.displayName,
          bio: c.bio,
          skills: c.skills as Row['skills'],
          interests: c.interests,
          // Other nodes' cards do not carry capabilities.
          capabilities: NO_CAPABILITIES,
          lastActiveAt: c.lastSeen,
          node: c.node,
        }),
      );
    return remote.length ? [...local, ...remote].sort((a, b) => (a.handle < b.handle ? -1 : 1)) : local;
  }

  async discover(callerId: string, goal: Parameters<typeof rank>[2], topic: string | undefined) {
    const [rows, topics] = await Promise.all([this.rows(), this.activity.allTopics()]);
    this.meaning?.refresh(rows);
    const near = topic?.trim() ? await this.meaning?.profiles(topic) : null;
    const toCandidate = (r: Row): Candidate => ({
      id: r.id,
      handle: r.handle,
      displayName: r.displayName,
      bio: r.bio,
      skills: r.skills,
      interests: r.interests,
      knowledge: topics.get(r.id) ?? [],
      capabilities: capabilityLabels(r.capabilities),
    });
    const me = rows.find((r) => r.id === callerId);
    const others = rows.filter((r) => r.id !== callerId);
    const meC: Candidate = me
      ? toCandidate(me)
      : { id: callerId, handle: '', displayName: '', bio: '', skills: [], interests: [], knowledge: [] };
    const matches = rank(meC, others.map(toCandidate), goal, topic, near);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { matches, considered: others.length, rowOf: (m: Match) => byId.get(m.candidate.id)! };
  }

  /**
   * Agents with a skill answering `skill`: by its words (every word in the skill's name,
   * abbreviations and close terms included) and by meaning (the skill's name close to it), the
   * two rankings fused (reciprocal rank fusion). Agents below `minLevel` are left out.
   */
  async skillSearch(skill: string, minLevel: ExpertiseLevel): Promise<SkillHit[]> {
    const rows = await this.rows();
    this.meaning?.refresh(rows);
    const byWords = new Map<string, SkillHit>();
    for (const row of rows) {
      let best: SkillHit | null = null;
      for (const s of row.skills) {
        if (!skillMatches(s.name, skill) || LEVEL_RANK[s.level] < LEVEL_RANK[minLevel]) continue;
        const fit = labelFit(s.name, skill);
        const score = Math.round(100 * fit * LEVEL_FIT[s.level]);
        if (best && score <= best.score) continue;
        const how = fit === 1 ? '' : fit >= 0.9 ? `, another name for ${skill}` : `, which includes ${skill}`;
        best = { row, matched: s, score, why: `lists ${s.name} (${s.level})${how}`, foundBy: ['words'] };
      }
      if (best) byWords.set(row.id, best);
    }
    const lexical = [...byWords.values()].sort(
      (a, b) =>
        b.score - a.score ||
        (b.row.lastActiveAt ?? 0) - (a.row.lastActiveAt ?? 0) ||
        (a.row.handle < b.row.handle ? -1 : 1),
    );
    const near = await this.meaning?.skills(skill);
    if (!near) return lexical;
    const byId = new Map(rows.map((r) => [r.id, r]));
    const byMeaning = new Map<string, SkillHit>();
    for (const n of near) {
      const row = byId.get(n.agentId);
      const s = row?.skills.find((x) => x.name === n.skill);
      if (!row || !s || LEVEL_RANK[s.level] < LEVEL_RANK[minLevel]) continue;
      byMeaning.set(row.id, {
        row,
        matched: s,
        score: Math.round(100 * Math.min(1, n.similarity) * LEVEL_FIT[s.level]),
        why: `lists ${s.name} (${s.level}), close in meaning to ${skill} (similarity ${n.similarity.toFixed(2)})`,
        foundBy: ['meaning'],
      });
    }
    return fuseRankings([
      { signal: 'words', ids: lexical.map((h) => h.row.id) },
      { signal: 'meaning', ids: [...byMeaning.keys()] },
    ]).map((f) => {
      const hit = byWords.get(f.id) ?? byMeaning.get(f.id)!;
      return { ...hit, foundBy: f.signals as SkillHit['foundBy'] };
    });
  }

  async recentLine(agentIds: string[], now: number) {
    const latest = await this.activity.latestOf(agentIds);
    return (id: string) => {
      const a = latest.get(id);
      return a
        ? {
            item: { kind: a.kind, summary: a.summary, at: new Date(a.at).toISOString() },
            text: `${a.summary} (${timeAgo(a.at, now)})`,
          }
        : null;
    };
  }

  async counts(since: number): Promise<{ registered: number; activeToday: number }> {
    const [r] = await this.db
      .select({
        registered: sql<number>`count(*)`,
        activeToday: sql<number>`coalesce(sum(case when ${agents.lastActiveAt} >= ${since} then 1 else 0 end), 0)`,
      })
      .from(agents);
    return { registered: Number(r?.registered ?? 0), activeToday: Number(r?.activeToday ?? 0) };
  }
}
