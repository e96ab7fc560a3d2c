import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Database, openDatabase } from '@lore/kit/db';
import { appFetch, connectClient, eventually, ok, tempDir } from '@lore/kit/testing';
import { STEMMER_VERSION } from '@lore/search';
import { afterAll, describe, expect, it } from 'vitest';
import { agentToken } from '../src/domain/knowledge-base.js';
import { passageText } from '../src/domain/knowledge-types.js';
import { indexTerms } from '../src/domain/search-terms.js';
import { createKnowledgeService } from '../src/index.js';
import * as tables from '../src/tables.js';
import { startEnv } from './helpers.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

type Searched = { passages: Array<{ source: string; excerpt: string }> };
type Found = { results: Array<{ slug: string }> };

/** What stemmer 1 wrote for a text: the same stems, but "router" was `rout`. */
const oldStems = (text: string) => indexTerms(text).replace(/\brouter\b/g, 'rout');

/** Rewrites every FTS row of the knowledge database as stemmer 1 wrote it, with no version recorded. */
async function downgrade(db: Database): Promise<void> {
  const chunks = await db.$client.execute('select id, agent_id, heading_path, text from chunks');
  for (const r of chunks.rows) {
    await db.$client.execute({ sql: 'delete from chunks_fts where rowid = ?', args: [Number(r.id)] });
    await db.$client.execute({
      sql: 'insert into chunks_fts (rowid, agent, terms) values (?, ?, ?)',
      args: [
        Number(r.id),
        agentToken(String(r.agent_id)),
        oldStems(passageText(JSON.parse(String(r.heading_path)) as string[], String(r.text))),
      ],
    });
  }
  const articles = await db.$client.execute('select seq, title, tags, summary, content from articles');
  for (const r of articles.rows) {
    await db.$client.execute({ sql: 'delete from articles_fts where rowid = ?', args: [Number(r.seq)] });
    await db.$client.execute({
      sql: 'insert into articles_fts (rowid, title, tags, summary, body) values (?, ?, ?, ?, ?)',
      args: [
        Number(r.seq),
        oldStems(String(r.title)),
        oldStems((JSON.parse(String(r.tags)) as string[]).join(' ')),
        oldStems(String(r.summary)),
        oldStems(String(r.content)),
      ],
    });
  }
  // A database from before the indexes were versioned records none.
  await db.$client.execute('delete from lore_index_versions');
}

describe('a knowledge database whose index an older stemmer wrote', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const url = `file:${join(dir.path, 'knowledge.db')}`;

  it('is rewritten in the background at start, and finds "router" again', async () => {
    const t = await startEnv({ LORE_KNOWLEDGE_DB_URL: url });
    try {
      const bob = await t.register('bob');
      await ok(bob.client, 'updateKnowledgeSources', {
        file_name: 'network.md',
        file_content: '# Network\n\nRestart the router before upgrading its firmware.\n',
      });
      await ok(bob.client, 'article_publish', {
        title: 'Choosing a home router',
        content: 'A router with two radios serves a flat of four rooms.',
        category: 'guides',
        tags: ['network'],
        summary: 'What to look for.',
      });
      const findChunk = async (client: typeof bob.client) =>
        (await ok<Searched>(client, 'searchKnowledge', { query: 'router' })).data.passages.find(
          (p) => p.source === 'network.md',
        );
      const findArticle = async (client: typeof bob.client) =>
        (await ok<Found>(client, 'article_search', { query: 'router' })).data.results.find(
          (a) => a.slug === 'choosing-a-home-router',
        );
      expect(await findChunk(bob.client)).toBeDefined();
      await t.knowledge.stop();

      const db = await openDatabase({ url, schema: tables, migrationsFolder: MIGRATIONS });
      try {
        await downgrade(db);
        const routerRows = async () =>
          Number(
            (
              await db.$client.execute(
                `select count(*) as n from chunks_fts where chunks_fts match '"router"'`,
              )
            ).rows[0]!.n,
          );
        expect(await routerRows()).toBe(0);

        // Started again on the old index: the rewrite runs in the background, searches answer.
        const again = await createKnowledgeService(t.env.deps);
        await again.start();
        try {
          const client = await connectClient(appFetch(again.app), { key: bob.key });
          const hit = await eventually('the chunk to be found by "router"', () => findChunk(client));
          expect(hit.excerpt).toContain('router');
          await eventually('the article to be found by "router"', () => findArticle(client));
          const versions = await eventually('both indexes to be recorded', async () => {
            const rows = (
              await db.$client.execute(
                'select name, version from lore_index_versions where version is not null',
              )
            ).rows;
            return rows.length === 2 ? Object.fromEntries(rows.map((r) => [r.name, r.version])) : undefined;
          });
          expect(versions).toEqual({ chunks_fts: STEMMER_VERSION, articles_fts: STEMMER_VERSION });
          expect(await routerRows()).toBe(1);
        } finally {
          await again.stop();
        }
      } finally {
        db.$client.close();
      }
    } finally {
      await t.close();
    }
  });
});
