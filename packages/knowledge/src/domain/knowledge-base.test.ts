import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Embedder, LOCAL_MODEL, LocalEmbedder } from '@lore/embed';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, openDatabase } from '@lore/kit/db';
import type { EventEnvelope, VerifiedAgent } from '@lore/schema';
import { KnowledgeSourceAdded } from '@lore/schema';
import { float32FromBuffer, keywords, nearestSql, splitDocument } from '@lore/search';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as tables from '../tables.js';
import { AgentCaches } from './agent-caches.js';
import type { ExtractedDocument } from './ingest.js';
import { agentToken, KnowledgeBase, SOURCE_KEYWORDS } from './knowledge-base.js';
import { type PreparedPart, streamSource } from './prepare-source.js';
import { PreparedStream } from './prepared-stream.js';
import { indexTerms, stem } from './search-terms.js';
import { embeddedText, Vectorizer } from './vectorizer.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const log = createLogger({ name: 'test', level: 'silent' });
const ada: VerifiedAgent = { id: 'agent-ada', handle: 'ada', node: 'n1' };

const markdown = (topic: string, sections: number) =>
  Array.from(
    { length: sections },
    (_, i) =>
      `## ${topic} part ${i}\n\nThe ${topic} service keeps its ${topic} cache warm; ` +
      `section ${i} explains ${topic} retries, timeouts and the naïve café fallback.`,
  ).join('\n\n');

const doc = (name: string, text: string): ExtractedDocument => ({
  name,
  format: 'markdown',
  text,
  pages: null,
});

interface ChunkRow {
  id: number;
  source_id: string;
  agent_id: string;
  position: number;
  heading_path: string;
  text: string;
  term_count: number;
  embedding: ArrayBuffer | null;
}

describe('KnowledgeBase ingest', () => {
  let dir: string;
  let db: Database<typeof tables>;
  let bus: MemoryBus;
  let events: EventEnvelope[];

  const open = (embedder: Embedder | null = null) =>
    new KnowledgeBase(db, new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log), embedder, log);
  const chunkRows = (where = sql`1`) =>
    // `length` is aliased: a libSQL row is array-like, its own `length` counts the columns.
    db.all<ChunkRow>(
      sql`select id, source_id, agent_id, position, heading_path, text, length as term_count, embedding
          from chunks where ${where} order by id`,
    );
  /** The ids of Ada's chunks whose indexed stems hold the word's stem. */
  const ftsIds = (word: string) =>
    db
      .all<{ id: number }>(
        sql`select rowid as id from chunks_fts where chunks_fts match ${`agent:"${agentToken(ada.id)}" AND terms:"${stem(word)}"`} order by rowid`,
      )
      .then((rows) => rows.map((r) => Number(r.id)));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-kb-'));
    db = await openDatabase({
      url: `file:${join(dir, 'k.db')}`,
      schema: tables,
      migrationsFolder: MIGRATIONS,
    });
    bus = new MemoryBus();
    events = [];
  });

  afterEach(async () => {
    db.$client.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every chunk with its position, heading path, text and term count, and indexes its stems', async () => {
    const text = markdown('gateway', 3);
    const added = await open().add(ada, doc('gateway.md', text));
    const pieces = await splitDocument(text, { format: 'markdown' });
    const rows = await chunkRows();
    expect(added.chunks).toBe(pieces.length);
    expect(rows).toHaveLength(pieces.length);
    rows.forEach((r, i) => {
      const p = pieces[i]!;
      const terms = indexTerms(`${p.headingPath.join(' / ')}\n${p.text}`);
      expect(r).toMatchObject({
        agent_id: ada.id,
        position: p.index,
        heading_path: JSON.stringify(p.headingPath),
        text: p.text,
        term_count: terms.split(' ').length,
        embedding: null,
      });
      if (i > 0) expect(r.id).toBe(rows[i - 1]!.id + 1);
    });
    const [source] = await db.all<{ tokens: number; keywords: string }>(
      sql`select tokens, keywords from sources where name = 'gateway.md'`,
    );
    expect(source?.tokens).toBe(rows.reduce((n, r) => n + r.term_count, 0));
    expect(JSON.parse(source!.keywords)).toEqual(keywords(text, SOURCE_KEYWORDS));
    expect(await ftsIds('gateway')).toEqual(rows.map((r) => r.id));
    expect(await ftsIds('café')).toEqual(rows.map((r) => r.id));
    expect(await ftsIds('scheduler')).toEqual([]);
  });

  it('publishes KnowledgeSourceAdded at once without keywords, then with those of its classified passages', async () => {
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log);
    await bus.listen(KnowledgeSourceAdded.subject, (e) => {
      events.push(e);
    });
    const text = markdown('scheduler', 4);
    const kb = new KnowledgeBase(db, outbox, null, log);
    const added = await kb.add(ada, doc('scheduler.md', text));
    expect(added.keywords).toEqual(keywords(text, SOURCE_KEYWORDS));
    await kb.sensitivity.settled();
    await outbox.flush();
    const payload = {
      agentId: ada.id,
      handle: ada.handle,
      source: 'scheduler.md',
      chunks: 4,
      sharing: 'auto',
      summary: '',
    };
    expect(events.map((e) => e.payload)).toEqual([
      { ...payload, keywords: [] },
      { ...payload, keywords: expect.arrayContaining(['scheduler']) },
    ]);
  });

  it('classifies passages once uploads pause, holding them meanwhile and judging a cited one on the spot', async () => {
    // A pause that does not end by itself here (a slow machine may take longer than the default
    // between two uploads); the test ends it.
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log);
    const kb = new KnowledgeBase(db, outbox, null, log, Date.now, undefined, 60_000);
    const secret = '## Access\n\nThe payroll database password is Hunter2-Payroll! Rotate it in May.';
    await kb.add(ada, doc('ops.md', `${secret}\n\n${markdown('scheduler', 3)}`));
    await kb.add(ada, doc('more.md', markdown('alpha', 3)));
    // Uploads in a row: nothing is classified between them, and every passage waits as unclassified.
    expect(kb.sensitivity.classified).toBe(0);
    const pending = await kb.sensitivity.countsBySource(ada.id);
    expect(pending.get('ops.md')).toMatchObject({ unclassified: 4, credentials: 0 });
    expect(pending.get('more.md')).toMatchObject({ unclassified: 3 });
    // A draft citing the secret before its turn: the passage is classified now, never passed unjudged.
    const [cited] = await kb.sensitivity.passagesOf(ada.id, [
      { source: 'ops.md', text: 'The payroll database password is Hunter2-Payroll!' },
    ]);
    expect(cited).toMatchObject({ source: 'ops.md', classified: true, sensitivity: ['credentials'] });
    expect(kb.sensitivity.classified).toBe(0);
    // Once the uploads pause, the background pass classifies the rest.
    kb.sensitivity.wake(0);
    await kb.sensitivity.settled();
    expect(kb.sensitivity.classified).toBe(6);
    const done = await kb.sensitivity.countsBySource(ada.id);
    expect(done.get('ops.md')).toMatchObject({ unclassified: 0, credentials: 1 });
    expect(done.get('more.md')).toMatchObject({ unclassified: 0, credentials: 0 });
  });

  it('never reuses a chunk id, after a removal or a replacement', async () => {
    const kb = open();
    await kb.add(ada, doc('a.md', markdown('alpha', 2)));
    await kb.add(ada, doc('b.md', markdown('beta', 3)));
    const beforeRemoval = Math.max(...(await chunkRows()).map((r) => r.id));
    await kb.remove(ada, 'b.md');
    await kb.add(ada, doc('c.md', markdown('gamma', 2)));
    const gamma = await chunkRows(sql`text like '%gamma%'`);
    expect(Math.min(...gamma.map((r) => r.id))).toBe(beforeRemoval + 1);
    expect(await ftsIds('beta')).toEqual([]);

    const highest = Math.max(...(await chunkRows()).map((r) => r.id));
    const replaced = await kb.add(ada, doc('a.md', markdown('delta', 2)));
    expect(replaced.replaced).toBe(true);
    const delta = await chunkRows(sql`text like '%delta%'`);
    expect(delta.map((r) => r.id)).toEqual([highest + 1, highest + 2]);
    expect(await chunkRows(sql`text like '%alpha%'`)).toEqual([]);
    expect(await ftsIds('alpha')).toEqual([]);
    expect(await ftsIds('delta')).toEqual(delta.map((r) => r.id));
  });

  it('searches a chunk by its words until its vector arrives, then by meaning too', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const embedder: Embedder = {
      model: 'toy@1',
      embed: async (texts) => {
        await gate;
        return texts.map(() => new Float32Array([1, 0, 0]));
      },
    };
    const kb = open(embedder);
    await kb.add(ada, doc('tyres.md', '# Car care\n\nThe car needs new tyres and an oil change every year.'));
    const before = await kb.search(ada.id, 'car tyres oil change', { limit: 5 });
    expect(before.passages.map((p) => [p.source, p.relevant])).toEqual([['tyres.md', true]]);
    // No vector yet: a question sharing no word finds nothing.
    expect((await kb.search(ada.id, 'automobile maintenance', { limit: 5 })).passages).toEqual([]);
    release();
    await kb.vectorizer!.settled();
    const after = await kb.search(ada.id, 'automobile maintenance', { limit: 5 });
    expect(after.passages.map((p) => p.source)).toEqual(['tyres.md']);
  });

  it('finds the same passages by meaning whether the database or the process compares the vectors', async () => {
    // 384 dimensions, so the vectors go to the F32_BLOB column; a bag of hashed words.
    const embedder: Embedder = {
      model: 'toy-384@1',
      embed: async (texts) =>
        texts.map((t) => {
          const v = new Float32Array(384);
          for (const w of t.toLowerCase().match(/[a-z]+/g) ?? [])
            v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 384, 7)]! += 1;
          return v;
        }),
    };
    const kb = open(embedder);
    for (const [name, text] of [
      ['tyres.md', '# Car care\n\nThe car needs new tyres and an oil change every year.'],
      ['bees.md', '# Bees\n\nInspect the hive every week in spring; look for the queen and her eggs.'],
      ['bread.md', '# Bread\n\nFeed the sourdough starter the evening before you bake.'],
    ] as const)
      await kb.add(ada, doc(name, text));
    await kb.vectorizer!.settled();
    const rows = await db.all<{ n: number }>(sql`select count(*) as n from chunks where vector is not null`);
    expect(Number(rows[0]!.n)).toBe(3);
    const inMemory = new KnowledgeBase(
      db,
      new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log),
      embedder,
      log,
      Date.now,
      0,
    );
    for (const q of ['queen eggs hive', 'oil change tyres', 'starter evening']) {
      const a = (await kb.search(ada.id, q, { limit: 3 })).passages;
      const b = (await inMemory.search(ada.id, q, { limit: 3 })).passages;
      expect(b.map((p) => [p.source, p.foundBy])).toEqual(a.map((p) => [p.source, p.foundBy]));
      expect(a[0]!.foundBy).toEqual(['words', 'meaning']);
      for (const [i, p] of b.entries()) expect(p.similarity).toBeCloseTo(a[i]!.similarity!, 5);
    }
    await inMemory.close();
  });

  it("compares an agent's vectors found through the agent-and-model index, not every agent's of the model", async () => {
    // Without `chunks_agent_model`, SQLite read every agent's vectors of the model to keep one agent's.
    const nearest = nearestSql({
      table: 'chunks',
      column: 'vector',
      id: 'id',
      where: 'agent_id = ? and embedding_model = ?',
      k: 30,
    });
    const plan = await db.$client.execute({
      sql: `explain query plan ${nearest}`,
      args: [new Uint8Array(384 * 4), ada.id, LOCAL_MODEL],
    });
    expect(plan.rows.map((r) => String(r.detail)).join('\n')).toContain('USING INDEX chunks_agent_model');
  });

  it("finds an agent's chunks through the agent-and-model index (no index on agent alone), and merges FTS segments by 8", async () => {
    const plan = await db.$client.execute({
      sql: 'explain query plan select count(*) from chunks where agent_id = ?',
      args: [ada.id],
    });
    expect(plan.rows.map((r) => String(r.detail)).join('\n')).toContain('chunks_agent_model');
    const indexes = await db.$client.execute(
      "select name from sqlite_master where type = 'index' and tbl_name = 'chunks'",
    );
    expect(indexes.rows.map((r) => r.name)).not.toContain('chunks_agent');
    const automerge = await db.$client.execute("select v from chunks_fts_config where k = 'automerge'");
    expect(Number(automerge.rows[0]?.v)).toBe(8);
  });

  it('computes no vectors while sources are being added, and catches up after', async () => {
    await open(null).add(ada, doc('a.md', markdown('alpha', 3)));
    let calls = 0;
    const embedder: Embedder = {
      model: 'toy@1',
      embed: async (texts) => {
        calls++;
        return texts.map(() => new Float32Array([1, 0, 0]));
      },
    };
    let busy = true;
    const vectorizer = new Vectorizer(db, embedder, new AgentCaches(), log, () => busy);
    vectorizer.wake();
    await vectorizer.settled();
    expect(calls).toBe(0);
    busy = false;
    vectorizer.wake();
    await vectorizer.settled();
    expect(calls).toBe(1);
    expect((await chunkRows()).every((r) => r.embedding !== null)).toBe(true);
  });

  it('stays on words, and up, when the local model cannot load', async () => {
    const warnings: string[] = [];
    const embedder = new LocalEmbedder({
      sha256: '0'.repeat(64),
      log: { info() {}, warn: (_o, msg) => warnings.push(msg) },
    });
    const kb = open(embedder);
    try {
      await kb.add(
        ada,
        doc('tyres.md', '# Car care\n\nThe car needs new tyres and an oil change every year.'),
      );
      await kb.vectorizer!.settled();
      expect(embedder.state).toBe('unavailable');
      expect(warnings).toEqual(['local embedding model unavailable; searching by words only']);
      // What /readyz and platform_stats say.
      expect(kb.embeddings()).toEqual({
        embeddings: expect.stringMatching(
          /^unavailable: the weights .* have sha256 [0-9a-f]{64}, expected 0{64}$/,
        ),
        embeddingModel: LOCAL_MODEL,
      });
      const r = await kb.search(ada.id, 'car tyres oil change', { limit: 5, relevantFirst: true });
      expect(r.passages.map((p) => [p.source, p.relevant])).toEqual([['tyres.md', true]]);
    } finally {
      await kb.close();
    }
  });

  it('stores one vector per chunk, with its model, in the background after the upload', async () => {
    const embedded: string[] = [];
    const embedder: Embedder = {
      model: 'toy@1',
      embed: async (texts) => {
        embedded.push(...texts);
        return texts.map((_, i) => new Float32Array([i, 0.5, -1]));
      },
    } as Embedder;
    const text = markdown('vector', 3);
    const kb = open(embedder);
    const added = await kb.add(ada, doc('v.md', text));
    // The upload returns with its words indexed; the vectors follow.
    expect(added.vectors).toBe(0);
    await kb.vectorizer!.settled();
    // What is embedded is each passage under its heading path (its own heading line not repeated);
    // the sensitivity classifier embeds its prototypes and the passages' sentences on its own.
    const passages = embedded.filter((t) => t.startsWith('vector part'));
    expect(passages).toEqual(
      (await splitDocument(text, { format: 'markdown' })).map((p) =>
        embeddedText('v.md', p.headingPath, p.text),
      ),
    );
    expect(passages[0]).toBe(
      'vector part 0\nThe vector service keeps its vector cache warm; section 0 explains vector retries, timeouts and the naïve café fallback.',
    );
    const rows = await chunkRows();
    expect(rows.map((r) => [...float32FromBuffer(Buffer.from(r.embedding!))])).toEqual([
      [0, 0.5, -1],
      [1, 0.5, -1],
      [2, 0.5, -1],
    ]);
    const models = await db.all<{ m: string }>(sql`select distinct embedding_model as m from chunks`);
    expect(models.map((r) => r.m)).toEqual(['toy@1']);
  });

  it('writes and publishes nothing, and keeps the source it would replace, when the parse fails after its first parts', async () => {
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log);
    const kb = new KnowledgeBase(db, outbox, null, log);
    await kb.add(ada, doc('a.md', markdown('alpha', 2)));
    // Its announcement once classified is not this test's concern.
    await kb.sensitivity.settled();
    await outbox.flush();
    await bus.listen(KnowledgeSourceAdded.subject, (e) => {
      events.push(e);
    });
    const before = await chunkRows();
    const text = markdown('omega', 40);
    // The parser's parts as `streamSource` sends them, then a limit: the writes have begun.
    const failing: ExtractedDocument = {
      ...doc('a.md', text),
      prepared: new PreparedStream(async (onPart) => {
        await streamSource(text, 'markdown', 256, onPart);
        throw new Error("'a.md' was refused: parsing took longer than 10 s (time limit).");
      }),
    };
    await expect(kb.add(ada, failing)).rejects.toThrow(/time limit/);
    await outbox.flush();
    expect(events).toEqual([]);
    expect(await chunkRows()).toEqual(before);
    expect(await ftsIds('omega')).toEqual([]);
    expect(await ftsIds('alpha')).toEqual(before.map((r) => r.id));
  });

  it('gives the write turn back while its parser is late, and writes the whole source once it is done', async () => {
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log);
    const kb = new KnowledgeBase(db, outbox, null, log);
    await bus.listen(KnowledgeSourceAdded.subject, (e) => {
      events.push(e);
    });
    const text = markdown('omega', 40);
    const parts: PreparedPart[] = [];
    const end = await streamSource(text, 'markdown', 256, (p) => parts.push(p));
    let resume!: () => void;
    const stalled = new Promise<void>((resolve) => {
      resume = resolve;
    });
    // The first two parts, then nothing until the test says so (a starved parser).
    const slow: ExtractedDocument = {
      ...doc('slow.md', text),
      prepared: new PreparedStream(async (onPart) => {
        onPart(parts[0]!);
        onPart(parts[1]!);
        await stalled;
        for (const p of parts.slice(2)) onPart(p);
        return end;
      }),
    };
    const adding = kb.add(ada, slow);
    // Another write gets the turn while the slow source waits (it would wait for ever otherwise).
    await kb.add(ada, doc('quick.md', markdown('alpha', 2)));
    expect(await ftsIds('omega')).toEqual([]);
    resume();
    const added = await adding;
    expect(added).toMatchObject({ chunks: 40, keywords: end.keywords, replaced: false });
    const rows = await chunkRows(sql`text like '%omega%'`);
    expect(rows.map((r) => r.position)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(rows.map((r) => r.text)).toEqual(parts.flatMap((p) => p.texts));
    expect(await ftsIds('omega')).toEqual(rows.map((r) => r.id));
    await outbox.flush();
    expect(events.map((e) => (e.payload as { source: string }).source)).toEqual(['quick.md', 'slow.md']);
  });

  it('writes sources added at once, each whole with its rows, terms and event', async () => {
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log);
    const kb = new KnowledgeBase(db, outbox, null, log);
    await bus.listen(KnowledgeSourceAdded.subject, (e) => {
      events.push(e);
    });
    const topics = ['alpha', 'beta', 'gamma'];
    const added = await Promise.all(topics.map((t) => kb.add(ada, doc(`${t}.md`, markdown(t, 30)))));
    expect(added.map((a) => a.chunks)).toEqual([30, 30, 30]);
    for (const t of topics) {
      const rows = await chunkRows(sql`text like ${`%${t} service%`}`);
      expect(rows.map((r) => r.position)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(await ftsIds(t)).toEqual(rows.map((r) => r.id));
    }
    await outbox.flush();
    expect(events.map((e) => (e.payload as { source: string }).source).sort()).toEqual([
      'alpha.md',
      'beta.md',
      'gamma.md',
    ]);
  });

  it('ingests more chunks than one INSERT statement holds', async () => {
    const added = await open().add(ada, doc('big.md', markdown('bulk', 450)));
    expect(added.chunks).toBe(450);
    const rows = await chunkRows();
    expect(rows.map((r) => r.position)).toEqual(Array.from({ length: 450 }, (_, i) => i));
    expect(await ftsIds('bulk')).toHaveLength(450);
  });
});
