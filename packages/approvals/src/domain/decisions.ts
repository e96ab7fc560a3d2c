import { randomUUID } from 'node:crypto';
import type { Database } from '@lore/kit';
import { GroupCommit } from '@lore/kit';
import { and, count, eq, gte, ne, sql } from 'drizzle-orm';
import * as tables from '../tables.js';

const { decisions } = tables;
export type DecisionRow = typeof decisions.$inferSelect;
export type NewDecision = Omit<DecisionRow, 'id' | 'at'>;

/** The decision log: one automatic evaluation and at most one manual decision per query. */
export class DecisionRepository {
  private readonly writes = new GroupCommit<DecisionRow, void>(async (rows) => {
    await this.db.transaction(async (tx) => {
      await tx
        .insert(decisions)
        .values(rows)
        .onConflictDoUpdate({
          target: [decisions.queryId, decisions.recipientId, decisions.kind],
          set: {
            outcome: sql`excluded.outcome`,
            decidedBy: sql`excluded.decided_by`,
            condition: sql`excluded.condition`,
            reason: sql`excluded.reason`,
            checks: sql`excluded.checks`,
            at: sql`excluded.at`,
          },
        });
    });
    return rows.map(() => undefined);
  });

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly now: () => number,
  ) {}

  /**
   * Record (or, for a re-run evaluation of the same query, replace) a decision. Decisions
   * recorded at the same time share one transaction: a broadcast brings hundreds at once.
   */
  async record(d: NewDecision): Promise<void> {
    await this.writes.add({ ...d, id: randomUUID(), at: this.now() });
  }

  async forRecipient(recipientId: string): Promise<DecisionRow[]> {
    return this.db.select().from(decisions).where(eq(decisions.recipientId, recipientId));
  }

  async stats(since: number): Promise<Record<string, number>> {
    const rows = await this.db
      .select({ kind: decisions.kind, outcome: decisions.outcome, n: count() })
      .from(decisions)
      .groupBy(decisions.kind, decisions.outcome);
    const n = (kind: string, outcome: string) =>
      Number(rows.find((r) => r.kind === kind && r.outcome === outcome)?.n ?? 0);
    const [today] = await this.db
      .select({ n: count() })
      .from(decisions)
      .where(and(ne(decisions.outcome, 'pending'), gte(decisions.at, since)));
    const settled = rows.filter((r) => r.outcome !== 'pending').reduce((s, r) => s + Number(r.n), 0);
    return {
      decisions: settled,
      decisionsToday: Number(today?.n ?? 0),
      autoAccepted: n('auto', 'accepted'),
      autoRejected: n('auto', 'rejected'),
      leftPending: n('auto', 'pending'),
      manualAccepted: n('manual', 'accepted'),
      manualRejected: n('manual', 'rejected'),
    };
  }
}
