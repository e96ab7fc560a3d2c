import { fileURLToPath } from 'node:url';
import type { Embedder } from '@lore/embed';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, openDatabase } from '@lore/kit/db';
import { SqldProcess, tempDir } from '@lore/kit/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../src/domain/knowledge-base.js';
import * as tables from '../src/tables.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));
const log = createLogger({ name: 'test', level: 'silent' });
const ada = { id: 'agent-ada', handle: 'ada', node: 'n1' };

/** 384 dimensions (the F32_BLOB column): a bag of hashed words, so shared words mean nearness. */
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

describe('chunk vectors on a libSQL server (sqld)', () => {
  const dir = tempDir();
  const sqld = new SqldProcess(dir.path);
  let db: Database<typeof tables>;

  beforeAll(async () => {
    await sqld.start();
    db = await openDatabase({ url: sqld.url, schema: tables, migrationsFolder: MIGRATIONS });
  }, 60_000);
  afterAll(async () => {
    db?.$client.close();
    await sqld.kill();
    dir.cleanup();
  });

  it('stores vectors in the F32_BLOB column and finds the nearest by vector_distance_cos on the server', async () => {
    const kb = new KnowledgeBase(
      db,
      new Outbox(db, new MemoryBus(), { node: 'n1', service: 'knowledge' }, log),
      embedder,
      log,
    );
    try {
      await kb.add(ada, {
        name: 'bees.md',
        format: 'markdown',
        text: '# Bees\n\nInspect the hive weekly; find the queen.',
        pages: null,
      });
      await kb.add(ada, {
        name: 'bread.md',
        format: 'markdown',
        text: '# Bread\n\nFeed the sourdough starter at night.',
        pages: null,
      });
      await kb.vectorizer!.settled();
      const [row] = await db.all<{ type: string; n: number }>(
        sql`select typeof(vector) as type, count(*) as n from chunks where vector is not null`,
      );
      expect(row).toEqual({ type: 'blob', n: 2 });
      const r = await kb.search(ada.id, 'queen hive', { limit: 2 });
      expect(r.passages[0]).toMatchObject({ source: 'bees.md', foundBy: ['words', 'meaning'] });
      expect(r.passages[0]!.similarity).toBeGreaterThan(0.3);
    } finally {
      await kb.close();
    }
  });
});
