import type { TextVectors } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database, Transaction } from '@lore/kit/db';
import type { AnswerCitation, AskerProfile, PeerStatus } from '@lore/schema/queries';
import { type AnswerShared, QUERY_ID_PATTERN, QuestionAsked } from '@lore/schema/queries';
import { fuseRankings, stemmedMatchQuery } from '@lore/search';
import { and, asc, count, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import * as tables from '../tables.js';
import { indexQuestion } from './question-index.js';

const { questions, questionPeers, answers } = tables;
export type QuestionRow = typeof questions.$inferSelect;

/** Recipients listed in one `question.asked` event (about 100 bytes each). */
export const RECIPIENTS_PER_EVENT = 500;
export type AnswerRow = typeof answers.$inferSelect;

export interface Peer {
  id: string;
  handle: string;
  node: string;
}

export interface PeerView {
  peer: string;
  status: PeerStatus;
  updatedAt: number;
  /** Why the peer is undeliverable. */
  reason: string | null;
}

export interface NewQuestion {
  id: string;
  asker: { id: string; handle: string; node: string; profile: AskerProfile | null };
  question: string;
  peers: Peer[];
  broadcast: boolean;
  askedAt: number;
  expiresAt: number;
}

/**
 * Least cosine similarity (all-MiniLM-L6-v2) between `related_question` and one of the asker's
 * questions for it to count as found by meaning. Two wordings of one question score 0.5–0.9;
 * unrelated questions of one asker rarely above 0.3 (the calibration of agent profiles, where a
 * match went as low as 0.2, is looser than a question needs: a wrong question is worse than none).
 */
export const QUESTION_MIN_SIMILARITY = 0.4;
/** Candidates of each signal fused when finding a question. */
const FIND_DEPTH = 10;
const SEP = '\u001f';
/** A question's vector id: its asker's id first, so a search reads only the asker's questions. */
const vectorId = (askerId: string, questionId: string) => `${askerId}${SEP}${questionId}`;

/** The asker's side: questions asked here, their peers, and the answers that came back. */
export class QuestionRepository {
  /** Questions found by meaning (none: by words alone). */
  vectors: TextVectors | null = null;

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
  ) {}

  /** Queues, in the background, the questions whose vector is missing or stale. */
  async refreshVectors(): Promise<void> {
    if (!this.vectors?.enabled) return;
    const rows = await this.db
      .select({ id: questions.id, askerId: questions.askerId, question: questions.question })
      .from(questions);
    this.vectors.refresh(rows.map((r) => ({ id: vectorId(r.askerId, r.id), text: r.question })));
  }

  /** Store the question and publish it (one event listing every recipient) in one transaction. */
  async ask(q: NewQuestion): Promise<void> {
    await this.outbox.transaction(async (tx, emit) => {
      await tx.insert(questions).values({
        id: q.id,
        askerId: q.asker.id,
        askerHandle: q.asker.handle,
        question: q.question,
        broadcast: q.broadcast,
        askedAt: q.askedAt,
        expiresAt: q.expiresAt,
      });
      for (let i = 0; i < q.peers.length; i += 200) {
        await tx.insert(questionPeers).values(
          q.peers.slice(i, i + 200).map((p) => ({
            questionId: q.id,
            peerId: p.id,
            peerHandle: p.handle,
            peerNode: p.node,
            status: 'sent',
            updatedAt: q.askedAt,
          })),
        );
      }
      await indexQuestion(tx, { id: q.id, question: q.question, askerId: q.asker.id });
      this.vectors?.refresh([{ id: vectorId(q.asker.id, q.id), text: q.question }]);
      // One event per RECIPIENTS_PER_EVENT recipients: a broadcast stays under NATS's message size limit.
      for (let i = 0; i < q.peers.length; i += RECIPIENTS_PER_EVENT) {
        emit(QuestionAsked, {
          questionId: q.id,
          question: q.question,
          askedAt: new Date(q.askedAt).toISOString(),
          expiresAt: new Date(q.expiresAt).toISOString(),
          asker: q.asker,
          recipients: q.peers.slice(i, i + RECIPIENTS_PER_EVENT),
          broadcast: q.broadcast,
        });
      }
    });
  }

  /**
   * For each of `peerIds`, how many of the asker's questions still wait for that peer (sent, not
   * expired) and when the first of them expires.
   */
  async waitingFor(
    askerId: string,
    peerIds: readonly string[],
    now: number,
  ): Promise<Map<string, { waiting: number; nextExpiry: number }>> {
    if (!peerIds.length) return new Map();
    const rows = await this.db
      .select({
        peerId: questionPeers.peerId,
        waiting: count(),
        nextExpiry: sql<number>`min(${questions.expiresAt})`,
      })
      .from(questions)
      .innerJoin(questionPeers, eq(questionPeers.questionId, questions.id))
      .where(
        and(
          eq(questions.askerId, askerId),
          sql`${questions.expiresAt} > ${now}`,
          inArray(questionPeers.peerId, [...peerIds]),
          eq(questionPeers.status, 'sent'),
        ),
      )
      .groupBy(questionPeers.peerId);
    return new Map(
      rows.map((r) => [r.peerId, { waiting: Number(r.waiting), nextExpiry: Number(r.nextExpiry) }]),
    );
  }

  /**
   * The caller's own question: by id, by exact text, or the best match of its words and meaning
   * (the full-text ranking and the vector ranking of the asker's questions, fused).
   */
  async find(
    askerId: string,
    ref: string,
  ): Promise<{
    row: QuestionRow;
    matchedBy: 'id' | 'exact' | 'search';
    foundBy?: Array<'words' | 'meaning'>;
  } | null> {
    const text = ref.trim();
    if (QUERY_ID_PATTERN.test(text.toLowerCase())) {
      const row = await this.db.query.questions.findFirst({
        where: and(eq(questions.id, text.toLowerCase()), eq(questions.askerId, askerId)),
      });
      if (row) return { row, matchedBy: 'id' };
    }
    const exact = await this.db
      .select()
      .from(questions)
      .where(
        and(eq(questions.askerId, askerId), sql`lower(trim(${questions.question})) = ${text.toLowerCase()}`),
      )
      .orderBy(desc(questions.askedAt))
      .limit(1);
    if (exact[0]) return { row: exact[0], matchedBy: 'exact' };
    const match = stemmedMatchQuery(text, 16);
    const words = match
      ? await this.db.all<{ question_id: string }>(
          sql`select question_id from questions_fts where questions_fts match ${match} and asker_id = ${askerId}
              order by bm25(questions_fts) limit ${FIND_DEPTH}`,
        )
      : [];
    const near = await this.vectors?.nearest(text, {
      limit: FIND_DEPTH,
      minSimilarity: QUESTION_MIN_SIMILARITY,
      prefix: `${askerId}${SEP}`,
    });
    const [best] = fuseRankings([
      { signal: 'words', ids: words.map((w) => w.question_id) },
      { signal: 'meaning', ids: (near ?? []).map((n) => n.id.slice(askerId.length + 1)) },
    ]);
    if (!best) return null;
    const row = await this.db.query.questions.findFirst({
      where: and(eq(questions.id, best.id), eq(questions.askerId, askerId)),
    });
    return row ? { row, matchedBy: 'search', foundBy: best.signals as Array<'words' | 'meaning'> } : null;
  }

  async recent(askerId: string, limit = 5): Promise<QuestionRow[]> {
    return this.db
      .select()
      .from(questions)
      .where(eq(questions.askerId, askerId))
      .orderBy(desc(questions.askedAt))
      .limit(limit);
  }

  /** Every question of the asker, newest first. */
  async listByAsker(askerId: string): Promise<QuestionRow[]> {
    return this.db
      .select()
      .from(questions)
      .where(eq(questions.askerId, askerId))
      .orderBy(desc(questions.askedAt));
  }

  /** Per-peer status; a peer still at `sent` after the question's expiry shows as `expired`. */
  async peers(question: QuestionRow, now: number): Promise<PeerView[]> {
    const rows = await this.db
      .select()
      .from(questionPeers)
      .where(eq(questionPeers.questionId, question.id))
      .orderBy(asc(questionPeers.peerHandle));
    return rows.map((r) => ({
      peer: r.peerHandle,
      status: r.status === 'sent' && now > question.expiresAt ? 'expired' : (r.status as PeerStatus),
      updatedAt: r.status === 'sent' && now > question.expiresAt ? question.expiresAt : r.updatedAt,
      reason: r.status === 'undeliverable' ? r.reason : null,
    }));
  }

  /**
   * The peers as the asker sees them. A broadcast shows only the peers whose answer was
   * released: any other status (declined, undeliverable, even sent) would tell the asker which
   * of the network's agents hold something on a guessed word, since a broadcast that found
   * nothing relevant never reaches an owner.
   */
  async peersSeenByAsker(question: QuestionRow, now: number): Promise<PeerView[]> {
    const peers = await this.peers(question, now);
    return question.broadcast ? peers.filter((p) => p.status === 'answered') : peers;
  }

  async answers(questionId: string): Promise<AnswerRow[]> {
    return this.db
      .select()
      .from(answers)
      .where(eq(answers.questionId, questionId))
      .orderBy(asc(answers.receivedAt));
  }

  async answersFor(questionIds: string[]): Promise<AnswerRow[]> {
    if (!questionIds.length) return [];
    return this.db
      .select()
      .from(answers)
      .where(inArray(answers.questionId, questionIds))
      .orderBy(asc(answers.receivedAt));
  }

  /** Was this question really sent by this asker to this peer? */
  async wasSent(questionId: string, askerId: string, peerId: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: questions.id })
      .from(questions)
      .innerJoin(questionPeers, eq(questionPeers.questionId, questions.id))
      .where(
        and(eq(questions.id, questionId), eq(questions.askerId, askerId), eq(questionPeers.peerId, peerId)),
      )
      .limit(1);
    return rows.length > 0;
  }

  /** Keep the newest revision of a peer's answer and mark the peer answered. */
  async storeAnswer(
    tx: Transaction,
    a: z.output<typeof AnswerShared.payload>,
    eventId: string,
    at: number,
  ): Promise<boolean> {
    const [held] = await tx
      .select({ revision: answers.revision })
      .from(answers)
      .where(and(eq(answers.questionId, a.questionId), eq(answers.peerId, a.recipientId)))
      .limit(1);
    if (held && held.revision >= a.revision) return false;
    const row = {
      questionId: a.questionId,
      peerId: a.recipientId,
      peerHandle: a.recipientHandle,
      text: a.text,
      citations: a.citations as AnswerCitation[],
      strategy: a.strategy,
      revision: a.revision,
      receivedAt: at,
      eventId,
      writtenByOwner: a.writtenByOwner ?? false,
    };
    if (held)
      await tx
        .update(answers)
        .set(row)
        .where(and(eq(answers.questionId, a.questionId), eq(answers.peerId, a.recipientId)));
    else await tx.insert(answers).values(row);
    await tx
      .update(questionPeers)
      .set({ status: 'answered', updatedAt: at, reason: null })
      .where(and(eq(questionPeers.questionId, a.questionId), eq(questionPeers.peerId, a.recipientId)));
    return true;
  }

  /**
   * A peer declined, had nothing, or its node could not draft or evaluate the question in time
   * (undeliverable, with the reason): recorded unless an answer already arrived.
   */
  async markWithheld(
    tx: Transaction,
    questionId: string,
    peerId: string,
    status: 'declined' | 'no-knowledge' | 'undeliverable',
    at: number,
    reason?: string,
  ): Promise<void> {
    await tx
      .update(questionPeers)
      .set({ status, updatedAt: at, reason: reason ?? null })
      .where(
        and(
          eq(questionPeers.questionId, questionId),
          eq(questionPeers.peerId, peerId),
          sql`${questionPeers.status} <> 'answered'`,
        ),
      );
  }

  async stats(since: number): Promise<Record<string, number>> {
    const n = async (q: Promise<Array<{ n: number }>>) => Number((await q)[0]?.n ?? 0);
    return {
      questionsAsked: await n(this.db.select({ n: count() }).from(questions)),
      questionsAskedToday: await n(
        this.db.select({ n: count() }).from(questions).where(gte(questions.askedAt, since)),
      ),
      answersReceived: await n(this.db.select({ n: count() }).from(answers)),
      answersReceivedToday: await n(
        this.db.select({ n: count() }).from(answers).where(gte(answers.receivedAt, since)),
      ),
    };
  }
}
