import type { EvaluateQueryReply } from '@lore/schema/approvals';
import type { AnswerCitation, ClosestPassage, ReceivedStatus } from '@lore/schema/queries';

/**
 * The life of a query received by an agent hosted here, as pure functions: `decide` turns a
 * command and the current state into events (or refuses it), `evolve` folds an event into the
 * state. Time comes in with each command; nothing here reads a clock, a database or the bus.
 *
 *   drafting ─draft→ drafted ─evaluate→ pending | accepted | rejected | held
 *      │ nothing relevant → no-knowledge        pending | held ─owner→ accepted | rejected | edited
 *                           no-knowledge ─owner→ rejected, or ─edit→ pending
 *      │ nothing relevant to a broadcast → dropped (the copy is deleted: no inbox entry)
 *      └─ a step that cannot run is retried with backoff, then → undeliverable
 */

export interface Draft {
  text: string;
  citations: AnswerCitation[];
  strategy: 'endpoint' | 'sampling' | 'extractive' | 'manual';
}

/** What the recipient's conditions said about a drafted query (the approvals service's reply). */
export type Verdict = EvaluateQueryReply;

export interface DecisionNote {
  reason: string;
  decidedBy: string;
  condition: string | null;
  at: number | null;
}

export interface QueryState {
  status: ReceivedStatus | 'new' | 'dropped';
  /** Asked of the whole network: with nothing relevant the copy is dropped, not kept for the owner. */
  broadcast: boolean;
  /** `sources`: the citations of the draft as written, which later edits are checked against. */
  draft: (Draft & { edited: boolean; writtenByOwner: boolean; sources: AnswerCitation[] }) | null;
  /** Revisions sent to the asker (0 until accepted). */
  revision: number;
  decision: DecisionNote;
  /** Nothing drafted: the passages of the owner's knowledge that came closest (null: none kept). */
  closest: ClosestPassage[] | null;
  evaluatedAt: number | null;
  /** Retries of the step that cannot run: how many so far, when the next, until when. */
  attempts: number;
  nextAttemptAt: number | null;
  retryUntil: number | null;
  lastError: string | null;
}

export const initialState: QueryState = {
  status: 'new',
  broadcast: false,
  draft: null,
  revision: 0,
  decision: { reason: '', decidedBy: 'none', condition: null, at: null },
  closest: null,
  evaluatedAt: null,
  attempts: 0,
  nextAttemptAt: null,
  retryUntil: null,
  lastError: null,
};

export interface RetryPolicy {
  /** How long a step that cannot run is retried, from its first failure. */
  windowMs: number;
  /** The longest wait between attempts (waits double from one second). */
  maxBackoffMs: number;
}

/** When a query that was just recorded is looked at again if nothing finishes its step first. */
export const STEP_LEASE_MS = 30_000;

export type Command =
  | { type: 'receive'; at: number }
  | { type: 'draft'; draft: Draft | null; closest?: ClosestPassage[]; at: number }
  | { type: 'fail'; step: 'draft' | 'evaluate'; error: string; policy: RetryPolicy; at: number }
  | { type: 'evaluate'; verdict: Verdict; at: number }
  | { type: 'accept'; by: string; reason: string; at: number }
  | { type: 'reject'; by: string; reason: string; at: number }
  | { type: 'edit'; text: string; citations: AnswerCitation[]; by: string; at: number };

export type Event =
  | { type: 'received'; at: number }
  | { type: 'drafted'; draft: Draft; at: number }
  | { type: 'nothing-drafted'; closest: ClosestPassage[]; at: number }
  | { type: 'dropped'; at: number }
  | {
      type: 'retry-scheduled';
      step: 'draft' | 'evaluate';
      error: string;
      nextAttemptAt: number;
      retryUntil: number;
      at: number;
    }
  | { type: 'given-up'; step: 'draft' | 'evaluate'; reason: string; at: number }
  | { type: 'auto-decided'; verdict: Verdict; at: number }
  | { type: 'manually-decided'; outcome: 'accepted' | 'rejected'; by: string; reason: string; at: number }
  | { type: 'edited'; text: string; citations: AnswerCitation[]; by: string; resent: boolean; at: number };

/** A command the state does not allow; `code` is the tool error it becomes. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly code: 409,
    readonly status: QueryState['status'],
  ) {
    super(message);
    this.name = 'Refused';
  }
}

const OWNER_DECIDES: ReadonlySet<QueryState['status']> = new Set([
  'pending',
  'held',
  'drafted',
  'undeliverable',
  // Nothing matched: the owner may still decline it (or write an answer, then accept it).
  'no-knowledge',
]);

/** The wait before attempt n+1 after n failures: 1 s, 2 s, 4 s … up to the policy's ceiling. */
export const backoff = (attempts: number, maxMs: number) =>
  Math.min(maxMs, 1000 * 2 ** Math.min(30, Math.max(0, attempts - 1)));

export function decide(cmd: Command, s: QueryState): Event[] {
  switch (cmd.type) {
    case 'receive':
      return s.status === 'new' ? [{ type: 'received', at: cmd.at }] : [];
    case 'draft':
      // A late draft (another replica finished first, or the query was given up) changes nothing.
      if (s.status !== 'drafting') return [];
      if (cmd.draft?.citations.length) return [{ type: 'drafted', draft: cmd.draft, at: cmd.at }];
      // Only a question asked by name is kept for the owner when nothing matched.
      return s.broadcast
        ? [{ type: 'dropped', at: cmd.at }]
        : [{ type: 'nothing-drafted', closest: cmd.closest ?? [], at: cmd.at }];
    case 'fail': {
      const waiting = cmd.step === 'draft' ? 'drafting' : 'drafted';
      if (s.status !== waiting) return [];
      const until = s.retryUntil ?? cmd.at + cmd.policy.windowMs;
      if (cmd.at >= until)
        return [
          {
            type: 'given-up',
            step: cmd.step,
            reason: `${cmd.step === 'draft' ? 'Drafting' : 'Evaluation'} could not run for ${minutes(cmd.policy.windowMs)} (${s.attempts + 1} attempts; last error: ${cmd.error}).`,
            at: cmd.at,
          },
        ];
      return [
        {
          type: 'retry-scheduled',
          step: cmd.step,
          error: cmd.error,
          nextAttemptAt: Math.min(until, cmd.at + backoff(s.attempts + 1, cmd.policy.maxBackoffMs)),
          retryUntil: until,
          at: cmd.at,
        },
      ];
    }
    case 'evaluate':
      // Conditions are applied once, to a draft nobody decided yet.
      return s.status === 'drafted' && s.evaluatedAt === null
        ? [{ type: 'auto-decided', verdict: cmd.verdict, at: cmd.at }]
        : [];
    case 'accept':
    case 'reject': {
      const outcome = cmd.type === 'accept' ? 'accepted' : 'rejected';
      if (!OWNER_DECIDES.has(s.status) || (outcome === 'accepted' && !s.draft)) throw refusal(s, outcome);
      return [{ type: 'manually-decided', outcome, by: cmd.by, reason: cmd.reason, at: cmd.at }];
    }
    case 'edit':
      if (s.status === 'rejected')
        throw new Refused('was rejected; its answer can no longer be edited', 409, s.status);
      if (s.status === 'new' || s.status === 'drafting')
        throw new Refused('has no draft yet; it is still being drafted', 409, s.status);
      return [
        {
          type: 'edited',
          text: cmd.text,
          citations: cmd.citations,
          by: cmd.by,
          resent: s.status === 'accepted',
          at: cmd.at,
        },
      ];
  }
}

export function evolve(s: QueryState, e: Event): QueryState {
  const settled = { attempts: 0, nextAttemptAt: null, retryUntil: null, lastError: null };
  switch (e.type) {
    case 'received':
      return {
        ...s,
        status: 'drafting',
        decision: {
          reason: 'Received; drafting an answer from your knowledge.',
          decidedBy: 'none',
          condition: null,
          at: null,
        },
        nextAttemptAt: e.at + STEP_LEASE_MS,
      };
    case 'drafted':
      return {
        ...s,
        ...settled,
        status: 'drafted',
        draft: { ...e.draft, edited: false, writtenByOwner: false, sources: e.draft.citations },
        decision: { ...s.decision, reason: 'Drafted; waiting for your auto-approval conditions.' },
        nextAttemptAt: e.at + STEP_LEASE_MS,
      };
    case 'nothing-drafted':
      return {
        ...s,
        ...settled,
        status: 'no-knowledge',
        closest: e.closest,
        decision: {
          reason:
            'Nothing in your knowledge matched, so nothing was drafted. The asker sees it as waiting for you: write an answer (cqUpdateEditAnswer) and accept it, or decline it (cqRejectQuery).',
          decidedBy: 'no-knowledge',
          condition: null,
          at: e.at,
        },
      };
    case 'dropped':
      return { ...s, ...settled, status: 'dropped' };
    case 'retry-scheduled':
      return {
        ...s,
        attempts: s.attempts + 1,
        nextAttemptAt: e.nextAttemptAt,
        retryUntil: e.retryUntil,
        lastError: e.error,
      };
    case 'given-up':
      return {
        ...s,
        ...settled,
        lastError: s.lastError,
        status: 'undeliverable',
        decision: { reason: `Undeliverable: ${e.reason}`, decidedBy: 'system', condition: null, at: e.at },
      };
    case 'auto-decided': {
      const v = e.verdict;
      return {
        ...s,
        ...settled,
        status: v.outcome,
        evaluatedAt: e.at,
        revision: v.outcome === 'accepted' ? 1 : s.revision,
        decision: {
          reason: v.reason,
          decidedBy: v.decidedBy,
          condition: v.condition,
          at: v.outcome === 'accepted' || v.outcome === 'rejected' ? e.at : null,
        },
      };
    }
    case 'manually-decided':
      return {
        ...s,
        ...settled,
        status: e.outcome,
        evaluatedAt: s.evaluatedAt ?? e.at,
        revision: e.outcome === 'accepted' ? s.revision + 1 : s.revision,
        decision: { reason: e.reason, decidedBy: e.by, condition: null, at: e.at },
      };
    case 'edited': {
      const own = e.citations.length === 0;
      const fromNothing = s.status === 'no-knowledge';
      return {
        ...s,
        status: fromNothing ? 'pending' : s.status,
        draft: {
          text: e.text,
          citations: e.citations,
          strategy: own ? 'manual' : (s.draft?.strategy ?? 'manual'),
          edited: true,
          writtenByOwner: own,
          sources: s.draft?.sources ?? [],
        },
        revision: e.resent ? s.revision + 1 : s.revision,
        evaluatedAt: fromNothing ? e.at : s.evaluatedAt,
        decision: fromNothing
          ? {
              reason: `Answer written by ${e.by}; waiting for a manual decision.`,
              decidedBy: 'none',
              condition: null,
              at: null,
            }
          : s.decision,
      };
    }
  }
}

/** Decide, then fold the events in: the new state and what happened. */
export function run(cmd: Command, s: QueryState): { state: QueryState; events: Event[] } {
  const events = decide(cmd, s);
  return { state: events.reduce(evolve, s), events };
}

function refusal(s: QueryState, outcome: 'accepted' | 'rejected'): Refused {
  if (s.status === 'no-knowledge')
    return new Refused(
      `has no answer to send (no relevant knowledge). Write one with cqUpdateEditAnswer, then it can be ${outcome}`,
      409,
      s.status,
    );
  if (s.status === 'drafting' || s.status === 'new')
    return new Refused('is still being drafted; it can be decided once its draft is ready', 409, s.status);
  return new Refused(`is already ${s.status}; only pending queries can be ${outcome}`, 409, s.status);
}

const minutes = (ms: number) => {
  const m = ms / 60_000;
  return m >= 1 ? `${Number.isInteger(m) ? m : m.toFixed(1)} min` : `${Math.round(ms / 1000)} s`;
};
