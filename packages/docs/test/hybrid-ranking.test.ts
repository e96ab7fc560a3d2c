import { join } from 'node:path';
import type { Embedder } from '@lore/ingest';
import { createLogger, databaseFor } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { tempDir, testConfig } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { UNDICI_QUESTIONS } from '../eval/questions.js';
import { ChunkVectors, DocsSearch, DocsStore, ingestInputs } from '../src/index.js';
import * as tables from '../src/tables.js';

const log = createLogger({ name: 'test', level: 'silent' });

/**
 * An embedder whose vectors are all zero: they are stored after ingest like any other, and cosine
 * similarity finds nothing near a query, so the hybrid ranking is its keyword half alone.
 */
const silent: Embedder = {
  model: 'zero-vectors',
  embed: async (texts) => texts.map(() => new Float32Array(16)),
};

describe('hybrid search (an embeddings endpoint configured)', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('fuses vectors with the keyword-only ranking itself, not a weaker one', async () => {
    const db = await openDatabase({
      ...databaseFor(testConfig(join(dir.path, 'undici')), 'docs'),
      schema: tables,
      migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
    });
    try {
      const store = new DocsStore(db);
      const root = join(import.meta.dirname, '../eval/corpora/undici/docs');
      const hybrid = new DocsSearch(store, silent);
      const vectors = new ChunkVectors(store, silent, hybrid);
      const summary = await ingestInputs({ store, log, vectors }, [root], {
        source: 'undici',
        baseUri: 'https://undici.nodejs.org/docs/',
      });
      expect(summary.added).toBeGreaterThan(30);
      // The ingest returns before the vectors: they are computed in the background.
      await vectors.settled();
      expect((await store.vectors('zero-vectors')).length).toBe(summary.chunks);
      expect(await store.vectors('another-model')).toEqual([]);

      const keyword = new DocsSearch(store, null);
      for (const { question } of UNDICI_QUESTIONS) {
        const req = { query: question, filter: null, offset: 0, limit: 20 };
        const [k, h] = [await keyword.search(req), await hybrid.search(req)];
        expect(k.mode).toBe('bm25');
        expect(h.mode).toBe('hybrid');
        expect(k.hits.length).toBeGreaterThan(0);
        // Same chunks in the same order: the field-aware blend keeps its BM25 half and pages stay grouped.
        expect(
          h.hits.map((x) => x.chunkId),
          question,
        ).toEqual(k.hits.map((x) => x.chunkId));
        expect(new Set(h.hits.flatMap((x) => x.foundBy))).toEqual(new Set(['words']));
      }
    } finally {
      db.$client.close();
    }
  });
});
