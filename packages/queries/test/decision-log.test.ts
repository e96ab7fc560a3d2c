/**
 * The decision log is the queries service's own: accepting, rejecting and editing through its
 * tools write one row per `lore.queries.query.decided` event in the transaction that emits it, and
 * a database from before gets the log rebuilt from its received copies (migration 0005).
 */
import { join } from 'node:path';
import { databaseFor } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { call, migrationsBefore, ok, tempDir } from '@lore/kit/testing';
import { type EventEnvelope, QueryDecided, statsRpc } from '@lore/schema';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../src/tables.js';
import { BOB_DOC, eventually, type Node, type Requested, startNode } from './support.js';

const folder = migrationsFolder(new URL('../src/x.ts', import.meta.url).href);

describe('the decision log, written with each decision', () => {
  let n: Node;
  let alice: Awaited<ReturnType<Node['join']>>;
  let bob: Awaited<ReturnType<Node['join']>>;
  const announced: EventEnvelope[] = [];
  let seq = 0;

  const ask = async () => {
    const question = `What are the latest developments in quantum computing, part ${++seq}?`;
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', { question, peers: ['bob'] });
    const id = r.data.query_id;
    await eventually(
      async () => (await ok<Requested>(bob.q, 'cqListRequestedQueries')).data[id]?.status,
      (s) => s === 'pending' || s === 'held',
    );
    return id;
  };
  const logOf = async (queryId: string) => {
    const db = await openDatabase({ ...databaseFor(n.deps.config, 'queries'), schema: tables });
    try {
      return await db
        .select()
        .from(tables.decisions)
        .where(eq(tables.decisions.queryId, queryId))
        .orderBy(asc(tables.decisions.at), sql`rowid`);
    } finally {
      db.$client.close();
    }
  };
  const figures = async () =>
    (
      (await n.deps.bus.request(statsRpc('queries').subject, { since: new Date(0).toISOString() })) as {
        figures: Record<string, number>;
      }
    ).figures;

  beforeAll(async () => {
    n = await startNode();
    alice = await n.join('alice');
    bob = await n.join('bob');
    n.docs.set(bob.id, [BOB_DOC]);
    await n.deps.bus.listen(QueryDecided.subject, (e) => announced.push(e));
  });
  afterAll(() => n.stop());

  it('logs the evaluation, the owner’s edit and accept, each once and under its event’s id', async () => {
    const id = await ask();
    await ok(bob.q, 'cqUpdateEditAnswer', { query_id: id, new_answer: 'Logical qubits, from my notes.' });
    await ok(bob.q, 'cqAcceptQuery', { id });
    // Refused decisions change nothing and log nothing.
    expect((await call(bob.q, 'cqRejectQuery', { id })).error?.code).toBe(409);
    expect((await call(alice.q, 'cqAcceptQuery', { id })).error?.code).toBe(403);
    const log = await logOf(id);
    expect(log.map((d) => [d.kind, d.outcome, d.decidedBy])).toEqual([
      ['auto', 'pending', 'none'],
      ['manual', 'edited', 'manual:@bob'],
      ['manual', 'accepted', 'manual:@bob'],
    ]);
    expect(log[2]).toMatchObject({ recipientId: bob.id, askerHandle: 'alice', reason: 'Accepted by @bob.' });
    // The rows are the events: every event announced for this copy has its row, and no other.
    await eventually(
      async () => announced.filter((e) => (e.payload as { queryId: string }).queryId === id).length,
      (c) => c === 3,
    );
    expect(new Set(log.map((d) => d.eventId))).toEqual(
      new Set(announced.filter((e) => (e.payload as { queryId: string }).queryId === id).map((e) => e.id)),
    );
  });

  it('logs the gate’s hold and the owner’s rejection with its reason, and counts them for platform_stats', async () => {
    const before = await figures();
    n.verdicts.set('bob', 'held');
    let id: string;
    try {
      id = await ask();
    } finally {
      n.verdicts.delete('bob');
    }
    const r = await ok<{ content: string; status: string }>(bob.q, 'cqInboxReject', {
      id,
      reason: 'not now',
    });
    expect(r.data.status).toBe('rejected');
    const log = await logOf(id);
    expect(log.map((d) => [d.kind, d.outcome])).toEqual([
      ['auto', 'held'],
      ['manual', 'rejected'],
    ]);
    expect(log[0]).toMatchObject({ condition: 'test held', reason: 'held by the test condition' });
    expect(log[1]!.reason).toBe('Rejected by @bob: not now');
    expect(await figures()).toMatchObject({
      autoHeld: (before.autoHeld ?? 0) + 1,
      manualRejected: (before.manualRejected ?? 0) + 1,
      decisions: (before.decisions ?? 0) + 1,
    });
  });
});

describe('a queries database from before the decision log', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const url = `file:${join(dir.path, 'queries.db')}`;

  it('gets one row per decided copy, rebuilt from the copy’s latest decision', async () => {
    const old = await openDatabase({
      url,
      schema: tables,
      migrationsFolder: migrationsBefore(folder, dir.path, '0005_decision_log'),
    });
    const copy = async (
      id: string,
      status: string,
      decidedBy: string,
      reason: string,
      at: { decided?: number; evaluated?: number } = {},
      condition: string | null = null,
    ) =>
      old.$client.execute({
        sql: `insert into received_queries (id, recipient_id, recipient_handle, asker_id, asker_handle, asker_node,
            question, asked_at, received_at, status, citations, decision_reason, decided_by, decision_condition,
            decided_at, evaluated_at)
          values (?, 'agent-bob', 'bob', 'agent-ada', 'ada', 'n1', 'Why?', 1, 2, ?, '[]', ?, ?, ?, ?, ?)`,
        args: [id, status, reason, decidedBy, condition, at.decided ?? null, at.evaluated ?? null],
      });
    await copy('qry-manualacc01', 'accepted', 'manual:@bob', 'Accepted by @bob.', {
      decided: 30,
      evaluated: 10,
    });
    await copy(
      'qry-autorejct01',
      'rejected',
      'condition:interpreter',
      'Rejected by "Never share salaries".',
      { decided: 20, evaluated: 20 },
      'Never share salaries',
    );
    await copy('qry-heldcopy001', 'held', 'gate:sensitive', 'Held for you: a password.', { evaluated: 15 });
    await copy('qry-pendingaut1', 'pending', 'none', 'Pending: none of your conditions matches.', {
      evaluated: 12,
    });
    await copy(
      'qry-ownanswer01',
      'pending',
      'none',
      'Answer written by @bob; waiting for a manual decision.',
      {
        evaluated: 14,
      },
    );
    await copy('qry-undeliver01', 'undeliverable', 'system', 'Undeliverable: Drafting could not run.', {
      decided: 40,
    });
    // Not decided by anyone yet: no row.
    await copy('qry-drafting001', 'drafting', 'none', 'Received; drafting an answer from your knowledge.');
    await copy('qry-drafted0001', 'drafted', 'none', 'Drafted; waiting for your auto-approval conditions.');
    await copy('qry-nothing0001', 'no-knowledge', 'no-knowledge', 'Nothing in your knowledge matched.');
    old.$client.close();

    const db = await openDatabase({ url, schema: tables, migrationsFolder: folder });
    try {
      const rows = await db.select().from(tables.decisions).orderBy(asc(tables.decisions.queryId));
      expect(rows.map((r) => [r.queryId, r.kind, r.outcome, r.decidedBy, r.at])).toEqual([
        ['qry-autorejct01', 'auto', 'rejected', 'condition:interpreter', 20],
        ['qry-heldcopy001', 'auto', 'held', 'gate:sensitive', 15],
        ['qry-manualacc01', 'manual', 'accepted', 'manual:@bob', 30],
        ['qry-ownanswer01', 'manual', 'edited', 'none', 14],
        ['qry-pendingaut1', 'auto', 'pending', 'none', 12],
        ['qry-undeliver01', 'system', 'undeliverable', 'system', 40],
      ]);
      expect(rows[0]).toMatchObject({
        recipientId: 'agent-bob',
        recipientHandle: 'bob',
        askerHandle: 'ada',
        condition: 'Never share salaries',
        reason: 'Rejected by "Never share salaries".',
        checks: [],
        eventId: null,
      });
    } finally {
      db.$client.close();
    }
  });
});
