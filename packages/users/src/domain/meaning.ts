import type { NearHit, TextVectors, VectorText } from '@lore/kit';
import type { Skill } from '@lore/schema/users';

/**
 * Least cosine similarity (all-MiniLM-L6-v2) between a query and an agent's profile for the
 * profile to count as found by meaning. Calibrated on a separate set of six profiles and twelve
 * paraphrased queries (not the evaluation set's words): the right profile scored 0.09–0.59
 * (median 0.31), every other profile at most 0.18; 0.2 keeps ten of twelve and no other.
 */
export const PROFILE_MIN_SIMILARITY = 0.2;
/**
 * Least similarity between a searched skill and a skill's name. Short labels score higher on a
 * miss (up to 0.56 in the same calibration: "taking pictures" ~ "photo editing") and lower on a
 * hit (0.19 for "seamanship" ~ "navigation"): 0.5 keeps six of eight and lets two near ones in.
 */
export const SKILL_MIN_SIMILARITY = 0.5;
/** Nearest vectors read per search (a node's agents fit many times over). */
const NEAREST = 500;

const SEP = '\u001f';
const profileId = (agentId: string) => `p${SEP}${agentId}`;
const skillId = (agentId: string, skill: string) => `s${SEP}${agentId}${SEP}${skill}`;

/** What an agent's vectors are made from: its own words and its public descriptions. */
export interface ProfileSource {
  id: string;
  displayName: string;
  bio: string;
  skills: Skill[];
  interests: string[];
}

/**
 * The text a profile is embedded from: name, bio, skills, interests and the names and owner's
 * summaries of the sources it shares auto (never words from the sources themselves).
 */
export function profileText(p: ProfileSource, knowledge: readonly string[] = []): string {
  const parts = [p.displayName, p.bio.trim()];
  if (p.skills.length) parts.push(`Skills: ${p.skills.map((s) => s.name).join(', ')}.`);
  if (p.interests.length) parts.push(`Interests: ${p.interests.join(', ')}.`);
  if (knowledge.length) parts.push(`Shares knowledge about: ${knowledge.join('; ')}.`);
  return parts.filter(Boolean).join('\n');
}

/**
 * Agents found by meaning: a vector per profile and per skill name, kept fresh in the background.
 * Without an embedder every method answers `null` and searches stay lexical.
 */
export class AgentMeaning {
  constructor(
    private readonly vectors: TextVectors | null,
    /** Each agent's public words (names and summaries of the sources it shares auto). */
    private readonly knowledge: () => Promise<ReadonlyMap<string, readonly string[]>> = async () => new Map(),
  ) {}

  get enabled(): boolean {
    return this.vectors?.enabled ?? false;
  }

  /** Queues the profiles (and skills) whose vectors are missing or stale, in the background. */
  refresh(rows: ProfileSource[]): void {
    if (!this.vectors?.enabled) return;
    this.pending = (async () => {
      await this.pending;
      this.queue(rows, await this.knowledge());
    })().catch(() => {});
  }

  private pending: Promise<void> = Promise.resolve();

  private queue(rows: ProfileSource[], knowledge: ReadonlyMap<string, readonly string[]>): void {
    if (!this.vectors?.enabled) return;
    const items: VectorText[] = [];
    for (const r of rows) {
      items.push({ id: profileId(r.id), text: profileText(r, knowledge.get(r.id)) });
      for (const s of r.skills) items.push({ id: skillId(r.id, s.name), text: s.name });
    }
    this.vectors.refresh(items);
  }

  /** Agent id → similarity of its profile to `query`, for the profiles close enough. */
  async profiles(query: string): Promise<Map<string, number> | null> {
    const hits = await this.vectors?.nearest(query, {
      limit: NEAREST,
      minSimilarity: PROFILE_MIN_SIMILARITY,
      prefix: `p${SEP}`,
    });
    if (!hits) return null;
    return new Map(hits.map((h) => [h.id.slice(2), h.similarity]));
  }

  /** Each agent's skill nearest to `skill` in meaning, most similar first. */
  async skills(skill: string): Promise<Array<{ agentId: string; skill: string; similarity: number }> | null> {
    const hits: NearHit[] | null | undefined = await this.vectors?.nearest(skill, {
      limit: NEAREST,
      minSimilarity: SKILL_MIN_SIMILARITY,
      prefix: `s${SEP}`,
    });
    if (!hits) return null;
    const seen = new Set<string>();
    const out: Array<{ agentId: string; skill: string; similarity: number }> = [];
    for (const h of hits) {
      const [, agentId, name] = h.id.split(SEP);
      if (!agentId || name === undefined || seen.has(agentId)) continue;
      seen.add(agentId);
      out.push({ agentId, skill: name, similarity: h.similarity });
    }
    return out;
  }

  /** Stops embedding (the service is stopping). */
  async close(): Promise<void> {
    await this.pending;
    await this.vectors?.close();
  }

  /** Resolves when the vectors queued so far are stored. */
  async settled(): Promise<void> {
    await this.pending;
    await this.vectors?.settled();
  }
}
