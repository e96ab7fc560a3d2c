import type { Emit } from '@lore/kit/bus';
import {
  AnswerShared,
  AnswerWithheld,
  type ConditionCheck,
  QueryDecided,
  type ReceivedStatus,
} from '@lore/schema/queries';
import type * as tables from '../tables.js';
import type { Event, QueryState } from './lifecycle.js';

export type ReceivedRow = typeof tables.receivedQueries.$inferSelect;

/** A stored copy as the lifecycle sees it. */
export function stateOf(r: ReceivedRow): QueryState {
  return {
    status: r.status as ReceivedStatus,
    broadcast: r.broadcast,
    draft: r.draftText
      ? {
          text: r.draftText,
          citations: r.citations,
          strategy: (r.strategy ?? 'manual') as 'endpoint' | 'sampling' | 'extractive' | 'manual',
          edited: r.edited,
          writtenByOwner: r.writtenByOwner,
          // Copies drafted before the draft's own citations were kept: its current ones.
          sources: r.sourceCitations.length || r.edited ? r.sourceCitations : r.citations,
        }
      : null,
    revision: r.revision,
    closest: r.closest ?? null,
    decision: {
      reason: r.decisionReason,
      decidedBy: r.decidedBy,
      condition: r.decisionCondition,
      at: r.decidedAt,
    },
    evaluatedAt: r.evaluatedAt,
    attempts: r.attempts,
    nextAttemptAt: r.nextAttemptAt,
    retryUntil: r.retryUntil,
    lastError: r.lastError,
  };
}

/** The columns a lifecycle state is stored in. */
export function columnsOf(s: QueryState) {
  return {
    status: s.status === 'new' ? 'drafting' : s.status,
    draftText: s.draft?.text ?? null,
    citations: s.draft?.citations ?? [],
    strategy: s.draft?.strategy ?? null,
    edited: s.draft?.edited ?? false,
    writtenByOwner: s.draft?.writtenByOwner ?? false,
    sourceCitations: s.draft?.sources ?? [],
    revision: s.revision,
    closest: s.closest,
    decisionReason: s.decision.reason,
    decidedBy: s.decision.decidedBy,
    decisionCondition: s.decision.condition,
    decidedAt: s.decision.at,
    evaluatedAt: s.evaluatedAt,
    attempts: s.attempts,
    nextAttemptAt: s.nextAttemptAt,
    retryUntil: s.retryUntil,
    lastError: s.lastError,
  };
}

/**
 * What the rest of the network hears when a copy changes: the asker's node gets the answer, or
 * the owner's own refusal, or that the node could not handle it; every decision is announced
 * (and logged here, `decisions.ts`). Nothing else reaches the asker: a question that found nothing, and one
 * the owner's conditions held, kept pending or declined on their own, all stay "sent" (waiting
 * for the owner) on the asker's side, so the asker cannot learn from the status or its timing
 * whether a source mentions what it guessed. A broadcast's asker hears only released answers:
 * its copy with nothing relevant is dropped unannounced, so a refusal or a give-up would tell the
 * asker (whatever its node claims the question was) that this owner held something.
 */
export function announce(emit: Emit, row: ReceivedRow, e: Event): void {
  const at = new Date(e.at).toISOString();
  const base = {
    questionId: row.id,
    askerId: row.askerId,
    askerHandle: row.askerHandle,
    recipientId: row.recipientId,
    recipientHandle: row.recipientHandle,
  };
  const decided = (
    kind: 'auto' | 'manual' | 'system',
    outcome: 'accepted' | 'rejected' | 'pending' | 'held' | 'edited' | 'undeliverable',
    d: { decidedBy: string; condition: string | null; reason: string; checks?: QueryDecidedChecks },
  ) =>
    emit(QueryDecided, {
      queryId: row.id,
      recipientId: row.recipientId,
      recipientHandle: row.recipientHandle,
      askerId: row.askerId,
      askerHandle: row.askerHandle,
      kind,
      outcome,
      decidedBy: d.decidedBy,
      condition: d.condition,
      reason: d.reason,
      checks: d.checks ?? [],
      at,
    });
  const withheld = (reason: 'declined' | 'undeliverable', detail?: string) => {
    if (row.broadcast) return;
    emit(AnswerWithheld, { ...base, reason, ...(detail === undefined ? {} : { detail }), at });
  };
  const share = () => {
    if (!row.draftText) return;
    emit(AnswerShared, {
      ...base,
      text: row.draftText,
      citations: row.citations,
      strategy: row.edited
        ? 'manual'
        : ((row.strategy ?? 'manual') as 'endpoint' | 'sampling' | 'extractive' | 'manual'),
      revision: Math.max(1, row.revision),
      sharedAt: at,
      ...(row.writtenByOwner ? { writtenByOwner: true } : {}),
    });
  };
  switch (e.type) {
    case 'nothing-drafted':
      // In the owner's inbox as "nothing matched"; the asker is not told.
      return;
    case 'dropped':
      return;
    case 'given-up':
      withheld('undeliverable', e.reason);
      decided('system', 'undeliverable', { decidedBy: 'system', condition: null, reason: e.reason });
      return;
    case 'auto-decided':
      decided('auto', e.verdict.outcome, e.verdict);
      // A condition's refusal is the owner's inbox's business: the asker would learn from it that
      // the draft touched a denied topic.
      if (e.verdict.outcome === 'accepted') share();
      return;
    case 'manually-decided':
      decided('manual', e.outcome, { decidedBy: e.by, condition: null, reason: e.reason });
      if (e.outcome === 'accepted') share();
      else withheld('declined');
      return;
    case 'edited':
      decided('manual', 'edited', {
        decidedBy: `manual:${e.by}`,
        condition: null,
        reason: e.citations.length
          ? `Answer edited by ${e.by}; it still cites ${[...new Set(e.citations.map((c) => c.source))].join(', ')}.`
          : `Answer edited by ${e.by}: written by the owner, citing no source.`,
      });
      if (e.resent) share();
      return;
    default:
      return;
  }
}

type QueryDecidedChecks = ConditionCheck[];
