import { join } from 'node:path';
import { databaseFor } from '@lore/kit';
import { type Database, migrationsFolder, openDatabase } from '@lore/kit/db';
import { eventually, migrationsBefore, ok, tempDir, testConfig } from '@lore/kit/testing';
import { FTS_TOKENIZER, stemmedText } from '@lore/search';
import { afterAll, describe, expect, it } from 'vitest';
import { FTS_VERSION } from '../src/domain/store-rows.js';
import { DocsSearch, DocsStore } from '../src/index.js';
import * as tables from '../src/tables.js';
import { ftsSegments, startDocs } from './helpers.js';

const folder = migrationsFolder(new URL('../src/x.ts', import.meta.url).href);

const ftsSql = async (db: Database) =>
  String(
    (await db.$client.execute(`select sql from sqlite_master where name = 'chunks_fts'`)).rows[0]?.sql ?? '',
  );

/** The version `rebuildIndex` recorded for the docs index, once a rewrite is complete. */
const indexVersion = async (db: Database) => {
  const v = (await db.$client.execute(`select version from lore_index_versions where name = 'chunks_fts'`))
    .rows[0]?.version;
  return v ? String(v) : undefined;
};

interface SearchOut {
  results: Array<{ parent: string }>;
}

describe('a docs database indexed by the porter migration', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const url = `file:${join(dir.path, 'docs.db')}`;
  const FILLER = 900;

  it('is migrated to the stemmed index and answers searches again', async () => {
    // The database as the service left it before: porter FTS rows of the unstemmed text.
    const old = await openDatabase({
      url,
      schema: tables,
      migrationsFolder: migrationsBefore(folder, dir.path, '0002_chunks_fts_stemmed'),
    });
    expect(await ftsSql(old)).toMatch(/porter/);
    const docs = [
      { name: 'documents/old/deploy', title: 'Shipping', text: 'Deploying the servers takes two commands.' },
      ...Array.from({ length: FILLER }, (_, i) => ({
        name: `documents/old/f${i}`,
        title: `Filler ${i}`,
        text: `Filler page ${i} about nothing in particular.`,
      })),
    ];
    for (const d of docs) {
      await old.$client.execute({
        sql: `insert into documents (name, uri, title, description, content, data_source, content_hash, update_time)
          values (?, ?, ?, '', ?, 'old', ?, 0)`,
        args: [d.name, `https://old.example/${d.name}`, d.title, d.text, d.name],
      });
      const inserted = await old.$client.execute({
        sql: `insert into chunks (document, ordinal, heading_path, text) values (?, 0, '[]', ?) returning id`,
        args: [d.name, d.text],
      });
      const id = Number(inserted.rows[0]!.id);
      await old.$client.execute({
        sql: 'insert into chunks_fts (rowid, text, title, heading) values (?, ?, ?, ?)',
        args: [id, d.text, d.title, ''],
      });
    }
    old.$client.close();

    const docsService = await startDocs({ LORE_DOCS_DB_URL: url });
    try {
      const client = await docsService.client();
      // Another form of the words than the page's: found through the stems the rewrite wrote.
      const hit = await eventually('the rewritten index to answer', async () => {
        const r = await ok<SearchOut>(client, 'search_documents', { query: 'how do I deploy a server?' });
        return r.data.results.find((x) => x.parent === 'documents/old/deploy');
      });
      expect(hit).toBeDefined();
      const db = await openDatabase({ url, schema: tables, migrationsFolder: folder });
      try {
        const sqlText = await ftsSql(db);
        expect(sqlText).not.toMatch(/porter/);
        expect(sqlText).toContain(`tokenize='${FTS_TOKENIZER}'`);
        // Every chunk is indexed again (in more than one batch), and the index is marked current.
        await eventually('every chunk to be indexed', async () => {
          const n = Number(
            (
              await db.$client.execute({
                sql: 'select count(*) as n from chunks_fts where chunks_fts match ?',
                args: [`"${stemmedText('filler')}"`],
              })
            ).rows[0]!.n,
          );
          return n === FILLER ? n : undefined;
        });
        expect(await eventually('the index version', () => indexVersion(db))).toBe(FTS_VERSION);
        // The rewrite's batches left a segment each; they are merged into one afterwards.
        expect(
          await eventually('the index merged', async () => ((await ftsSegments(db)) === 1 ? 1 : undefined)),
        ).toBe(1);
      } finally {
        db.$client.close();
      }
    } finally {
      await docsService.close();
    }
  });
});

describe('reindexChunks', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('stops between batches and goes on from the last batch written', async () => {
    const db = await openDatabase({
      ...databaseFor(testConfig(dir.path), 'docs'),
      schema: tables,
      migrationsFolder: folder,
    });
    try {
      const store = new DocsStore(db);
      expect(await store.reindex()).toBe(0); // a fresh database: nothing to rewrite
      await db.transaction((tx) =>
        store.writeDocuments(
          tx,
          Array.from({ length: 25 }, (_, i) => ({
            name: `documents/t/d${i}`,
            uri: `https://t.example/d${i}`,
            title: `Page ${i}`,
            description: '',
            content: '',
            dataSource: 't',
            contentHash: String(i),
            updateTime: 0,
            replaces: false,
            chunks: [{ ordinal: 0, headingPath: ['Running'], text: `Computers computing page ${i}` }],
          })),
        ),
      );
      const count = async (term: string) =>
        Number(
          (
            await db.$client.execute({
              sql: 'select count(*) as n from chunks_fts where chunks_fts match ?',
              args: [`"${term}"`],
            })
          ).rows[0]!.n,
        );
      expect(await count(stemmedText('computers'))).toBe(25);
      expect(await count('computers')).toBe(0); // the index holds stems, not the words
      // As a migration leaves it: empty, and no version.
      await db.$client.execute('delete from chunks_fts');
      await db.$client.execute(`delete from lore_index_versions where name = 'chunks_fts'`);
      let checks = 0;
      const stopAfterOne = {
        get aborted() {
          return ++checks > 1;
        },
      } as AbortSignal;
      expect(await store.reindex({ batch: 10, signal: stopAfterOne })).toBe(10);
      expect(await count(stemmedText('computing'))).toBe(10);
      // A search on the partial index counts (and caches) its terms there: a word of the last
      // chunks only is in none yet.
      const search = new DocsSearch(store, null);
      const find = async (q: string) =>
        (await search.search({ query: q, filter: null, offset: 0, limit: 5 })).hits.map((h) => h.document);
      expect(await find('page 24 computer')).not.toContain('documents/t/d24');
      expect(await store.reindex({ batch: 10 })).toBe(15);
      expect(await count(stemmedText('compute'))).toBe(25);
      // Once done, the corpus generation moved on: the counts are taken again and the rest found.
      expect(await find('page 24 computer')).toContain('documents/t/d24');
      expect(await store.reindex()).toBe(0);
    } finally {
      db.$client.close();
    }
  });
  it('rewrites an index written with another stemmer version', async () => {
    const db = await openDatabase({
      ...databaseFor(testConfig(dir.path), 'docs-stemmer'),
      schema: tables,
      migrationsFolder: folder,
    });
    try {
      const store = new DocsStore(db);
      expect(await store.reindex()).toBe(0); // a fresh database: nothing to rewrite, version recorded
      await db.transaction((tx) =>
        store.writeDocuments(tx, [
          {
            name: 'documents/t/router',
            uri: 'https://t.example/router',
            title: 'Edge',
            description: '',
            content: '',
            dataSource: 't',
            contentHash: 'r',
            updateTime: 0,
            replaces: false,
            chunks: [{ ordinal: 0, headingPath: [], text: 'Restart the router before upgrading it.' }],
          },
        ]),
      );
      expect(await store.reindex()).toBe(0); // written with the recorded version: current
      expect(await indexVersion(db)).toBe(FTS_VERSION);
      const count = async (term: string) =>
        Number(
          (
            await db.$client.execute({
              sql: 'select count(*) as n from chunks_fts where chunks_fts match ?',
              args: [`"${term}"`],
            })
          ).rows[0]!.n,
        );
      // As stemmer 1 wrote it: "router" was `rout`, and the version says so.
      await db.$client.execute('delete from chunks_fts');
      await db.$client.execute(
        `insert into chunks_fts (rowid, text, title, heading) select id, 'restart the rout befor upgrad it', 'edg', '' from chunks`,
      );
      await db.$client.execute(
        `update lore_index_versions set version = '3+stemmer1' where name = 'chunks_fts'`,
      );
      expect(await count(stemmedText('router'))).toBe(0);
      expect(await store.reindex()).toBe(1);
      expect(await count(stemmedText('router'))).toBe(1);
      expect(await indexVersion(db)).toBe(FTS_VERSION);
    } finally {
      db.$client.close();
    }
  });
});
