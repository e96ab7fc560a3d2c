import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, openDatabase } from '@lore/kit/db';
import type { VerifiedAgent } from '@lore/schema';
import { type SQL, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as tables from '../tables.js';
import type { ExtractedDocument } from './ingest.js';
import { agentToken, KnowledgeBase } from './knowledge-base.js';
import { scorePassage, scoreStemCounts } from './relevance.js';
import { analyzeQuery, stemCounter, stems } from './search-terms.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const log = createLogger({ name: 'test', level: 'silent' });
const ada: VerifiedAgent = { id: 'agent-ada', handle: 'ada', node: 'n1' };
const bob: VerifiedAgent = { id: 'agent-bob', handle: 'bob', node: 'n1' };

const doc = (name: string, text: string): ExtractedDocument => ({
  name,
  format: 'markdown',
  text,
  pages: null,
});
/** One chunk per section; `weight` repeats the topic word in each. */
const sections = (topic: string, n: number, weight = 1) =>
  Array.from(
    { length: n },
    (_, i) =>
      `## Part ${i}\n\nNotes on ${`${topic} `.repeat(weight)}for item ${i}, with a few other words about the weather and lunch.`,
  ).join('\n\n');

describe('KnowledgeBase.search', () => {
  let dir: string;
  let db: Database<typeof tables>;
  let bus: MemoryBus;
  /** The bound parameters of every statement the knowledge base ran (built by drizzle, or prepared reads). */
  let params: string[];
  /** Whether a ranking (not a term count) was confined by the agent's FTS token. */
  const rankedByToken = (agent: VerifiedAgent) =>
    params.some((p) => p.includes(`agent:\\"${agentToken(agent.id)}\\" AND (`));

  const open = () =>
    new KnowledgeBase(db, new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log), null, log);
  const sourcesOf = async (kb: KnowledgeBase, agentId: string, query: string, source?: string) =>
    new Set(
      (await kb.search(agentId, query, { limit: 10, ...(source ? { source } : {}) })).passages.map(
        (p) => p.source,
      ),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-kb-search-'));
    db = await openDatabase({
      url: `file:${join(dir, 'k.db')}`,
      schema: tables,
      migrationsFolder: MIGRATIONS,
    });
    bus = new MemoryBus();
    params = [];
    const all = db.all.bind(db);
    const dialect = new SQLiteAsyncDialect();
    db.all = ((query: SQL) => {
      params.push(JSON.stringify(dialect.sqlToQuery(query).params));
      return all(query);
    }) as typeof db.all;
    // Search runs its statements as prepared reads: record theirs too.
    const reads = db.$client.reads;
    const readAll = reads.all.bind(reads);
    const readGet = reads.get.bind(reads);
    reads.all = (text, args = []) => {
      params.push(JSON.stringify(args));
      return readAll(text, args);
    };
    reads.get = (text, args = []) => {
      params.push(JSON.stringify(args));
      return readGet(text, args);
    };
  });

  afterEach(async () => {
    db.$client.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees what the agent adds, replaces and removes, although it caches its term counts', async () => {
    const kb = open();
    await kb.add(ada, doc('a.md', sections('horse', 5)));
    // "zebra" is in none of her chunks: counted once, as 0.
    expect(await sourcesOf(kb, ada.id, 'zebra')).toEqual(new Set());
    await kb.add(ada, doc('b.md', sections('zebra', 5)));
    expect(await sourcesOf(kb, ada.id, 'zebra')).toEqual(new Set(['b.md']));
    // Replaced by texts of as many chunks: the new chunks' ids move the revision on.
    await kb.add(ada, doc('a.md', sections('zebra', 5)));
    await kb.add(ada, doc('b.md', sections('horse', 5)));
    expect(await sourcesOf(kb, ada.id, 'zebra')).toEqual(new Set(['a.md']));
    await kb.remove(ada, 'a.md');
    expect(await sourcesOf(kb, ada.id, 'zebra')).toEqual(new Set());
    expect(await sourcesOf(kb, ada.id, 'horse')).toEqual(new Set(['b.md']));
  });

  it('counts a stem once while the agent’s chunks are unchanged', async () => {
    const kb = open();
    await kb.add(ada, doc('a.md', sections('zebra', 5)));
    // The count's parameter is the bare phrase; the ranking's is an expression around it.
    const counts = () => params.filter((p) => p.includes('"\\"zebra\\""')).length;
    params = [];
    await kb.search(ada.id, 'zebra', { limit: 5 });
    expect(counts()).toBe(1);
    params = [];
    await kb.search(ada.id, 'zebra', { limit: 5 });
    expect(counts()).toBe(0);
  });

  it('keeps an agent to her own chunks when another agent’s ids sit between hers', async () => {
    const kb = open();
    // Bob's chunks, between Ada's first and last source, hold the word more often: they
    // outrank all of hers in her id range, so ranking that range 100 rows deep leaves fewer
    // than the 30 candidates of hers, and the search falls back to her FTS token.
    await kb.add(ada, doc('a1.md', sections('zebra', 60)));
    await kb.add(bob, doc('b1.md', sections('zebra', 60, 4)));
    await kb.add(ada, doc('a2.md', sections('zebra', 60)));
    params = [];
    const found = await kb.search(ada.id, 'zebra', { limit: 10 });
    expect(found.passages).toHaveLength(10);
    for (const p of found.passages) expect(['a1.md', 'a2.md']).toContain(p.source);
    expect(rankedByToken(ada)).toBe(true);

    // The candidates are her best 30 by BM25, as her FTS token ranks them.
    const best = await db.all<{ id: number }>(
      sql`select rowid as id from chunks_fts where chunks_fts match ${`agent:"${agentToken(ada.id)}" AND "zebra"`}
          order by bm25(chunks_fts, 0.0, 1.0), rowid limit 30`,
    );
    const bestIds = new Set(best.map((r) => String(r.id)));
    for (const p of found.passages) expect(bestIds.has(p.id)).toBe(true);

    // One source: its ids are all its own, so its rowid range confines the search.
    params = [];
    expect(await sourcesOf(kb, ada.id, 'zebra', 'a2.md')).toEqual(new Set(['a2.md']));
    expect(rankedByToken(ada)).toBe(false);
    expect(await sourcesOf(kb, ada.id, 'zebra', 'b1.md')).toEqual(new Set());

    // Bob's chunks are one block of ids: no token needed.
    params = [];
    expect(await sourcesOf(kb, bob.id, 'zebra')).toEqual(new Set(['b1.md']));
    expect(rankedByToken(bob)).toBe(false);
  });

  it('ranks within an agent’s range that others share a little, without her token', async () => {
    const kb = open();
    await kb.add(ada, doc('a1.md', sections('zebra', 30)));
    await kb.add(bob, doc('b1.md', sections('zebra', 3)));
    await kb.add(ada, doc('a2.md', sections('zebra', 30)));
    params = [];
    const found = await kb.search(ada.id, 'zebra', { limit: 10 });
    expect(found.passages).toHaveLength(10);
    for (const p of found.passages) expect(['a1.md', 'a2.md']).toContain(p.source);
    expect(rankedByToken(ada)).toBe(false);
  });
});

describe('stemCounter', () => {
  const texts = [
    'Developments in developing developed quantum computers: computing, computed, compute.',
    'Über café naïve résumés: ÉCOLE écoles, Straße, 東京 and v2 builds; the wills of bakers.',
    'Running runs ran: the runner stopped, stopping stops; flies fly; policies and policy.',
    '',
  ];
  const queries = [
    'latest developments in quantum computing',
    'café école résumé',
    'running policy flies wills',
    'v2 東京 straße',
  ];

  it('scores a passage as stemming all of it does', () => {
    for (const query of queries) {
      const q = analyzeQuery(query);
      const count = stemCounter(q.stems);
      const stats = { chunks: 10, avgLength: 12, df: new Map(q.stems.map((s, i) => [s, i + 1])) };
      for (const text of texts) {
        expect(scoreStemCounts(q, count(text), stats)).toEqual(scorePassage(q, stems(text), stats));
        expect(count(text).length).toBe(stems(text).length);
      }
    }
  });
});
