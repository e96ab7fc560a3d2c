import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '@lore/kit';
import type { Database } from '@lore/kit/db';
import { and, asc, count, eq } from 'drizzle-orm';
import * as tables from '../tables.js';
import type { Interpretation } from './interpret.js';

const { conditions } = tables;
export type ConditionRow = typeof conditions.$inferSelect;

/** Most conditions one agent may keep: each one is checked against every query it receives. */
export const MAX_CONDITIONS = 50;

export const sentenceKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** An agent's auto-approval conditions. */
export class ConditionRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly now: () => number,
  ) {}

  async list(agentId: string): Promise<ConditionRow[]> {
    return this.db
      .select()
      .from(conditions)
      .where(eq(conditions.agentId, agentId))
      .orderBy(asc(conditions.createdAt), asc(conditions.id));
  }

  async add(agentId: string, sentence: string, interpretation: Interpretation): Promise<ConditionRow> {
    const key = sentenceKey(sentence);
    return this.db.transaction(async (tx) => {
      const [n] = await tx.select({ n: count() }).from(conditions).where(eq(conditions.agentId, agentId));
      if (Number(n?.n ?? 0) >= MAX_CONDITIONS)
        throw conflict(
          `You already have ${MAX_CONDITIONS} conditions, the most one agent can keep. Remove one first.`,
          { field: 'sentence' },
        );
      const row: ConditionRow = {
        id: randomUUID(),
        agentId,
        sentence: sentence.trim(),
        sentenceKey: key,
        effect: interpretation.effect,
        interpretation,
        createdAt: this.now(),
      };
      const inserted = await tx
        .insert(conditions)
        .values(row)
        .onConflictDoNothing()
        .returning({ id: conditions.id });
      if (!inserted.length)
        throw conflict(`You already have the condition '${sentence.trim()}'.`, { field: 'sentence' });
      return row;
    });
  }

  /** Remove by exact text (case and spacing aside); unknown text is a 404 naming the closest condition. */
  async remove(agentId: string, text: string): Promise<ConditionRow> {
    const key = sentenceKey(text);
    const removed = await this.db.transaction(async (tx) =>
      tx
        .delete(conditions)
        .where(and(eq(conditions.agentId, agentId), eq(conditions.sentenceKey, key)))
        .returning(),
    );
    if (removed[0]) return removed[0];
    const all = await this.list(agentId);
    if (!all.length)
      throw notFound(`No condition '${text.trim()}': you have no auto-approval conditions.`, {
        field: 'condition',
        closest: null,
      });
    const closest = all
      .map((c) => ({ c, score: similarity(key, c.sentenceKey) }))
      .sort((a, b) => b.score - a.score)[0]!.c.sentence;
    throw notFound(`No condition '${text.trim()}'. The closest existing condition is '${closest}'.`, {
      field: 'condition',
      closest,
      conditions: all.map((c) => c.sentence),
    });
  }

  async stats(): Promise<Record<string, number>> {
    const rows = await this.db
      .select({ effect: conditions.effect, n: count() })
      .from(conditions)
      .groupBy(conditions.effect);
    const by = Object.fromEntries(rows.map((r) => [r.effect, Number(r.n)]));
    return {
      conditions: (by.allow ?? 0) + (by.deny ?? 0),
      conditionsAllow: by.allow ?? 0,
      conditionsDeny: by.deny ?? 0,
    };
  }
}

/** Word overlap and edit distance, whichever says the texts are closer (0..1). */
export function similarity(a: string, b: string): number {
  const wa = new Set(a.split(/\W+/).filter(Boolean));
  const wb = new Set(b.split(/\W+/).filter(Boolean));
  const inter = [...wa].filter((w) => wb.has(w)).length;
  const jaccard = inter / Math.max(1, new Set([...wa, ...wb]).size);
  const edit = 1 - levenshtein(a, b) / Math.max(1, a.length, b.length);
  return Math.max(jaccard, edit);
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
