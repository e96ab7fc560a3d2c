import type { PeerStatus, ReceivedStatus } from '@lore/schema/queries';
import type { AnswerRow, PeerView } from './questions.js';
import type { ReceivedRow } from './received.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A received query as cqListRequestedQueries shows it. */
export function requestedQueryView(r: ReceivedRow) {
  return {
    id: r.id,
    from: r.askerHandle,
    question: r.question,
    untrusted: true as const,
    status: r.status as ReceivedStatus,
    timestamp: iso(r.receivedAt),
    draft: r.draftText
      ? {
          text: r.draftText,
          citations: r.citations,
          strategy: (r.strategy ?? 'manual') as 'endpoint' | 'sampling' | 'extractive' | 'manual',
          edited: r.edited,
          ...(r.writtenByOwner ? { written_by_owner: true } : {}),
        }
      : null,
    decision: {
      reason: r.decisionReason,
      decided_by: r.decidedBy,
      condition: r.decisionCondition,
      at: r.decidedAt ? iso(r.decidedAt) : null,
    },
    // Only the recipient lists its copies: the closest passages of its own knowledge.
    ...(r.closest ? { closest: r.closest } : {}),
  };
}

export function answerView(a: AnswerRow) {
  return {
    peer: a.peerHandle,
    text: a.text,
    untrusted: true as const,
    citations: a.citations,
    strategy: a.strategy as 'endpoint' | 'sampling' | 'extractive' | 'manual',
    revision: a.revision,
    received_at: iso(a.receivedAt),
    ...(a.writtenByOwner ? { written_by_owner: true } : {}),
  };
}

export function peerView(p: PeerView) {
  return {
    peer: p.peer,
    status: p.status,
    updated_at: iso(p.updatedAt),
    ...(p.reason ? { reason: p.reason } : {}),
  };
}

/** Peers that may still answer. */
export const stillPending = (peers: Array<{ status: PeerStatus }>) =>
  peers.filter((p) => p.status === 'sent').length;

/** One line per peer: `@bob answered, @carol no-knowledge, @dave undeliverable (why)`. */
export function peerLine(peers: PeerView[]): string {
  return peers.map((p) => `@${p.peer} ${p.status}${p.reason ? ` (${p.reason})` : ''}`).join(', ') || '—';
}

/** Quoted, single-line, bounded: text from another agent shown inside a listing. */
export function quote(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
