import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, openDatabase } from '@lore/kit/db';
import type { VerifiedAgent } from '@lore/schema';
import { STEMMER_VERSION } from '@lore/search';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as tables from '../tables.js';
import { KnowledgeBase } from './knowledge-base.js';
import { agentToken, passageText } from './knowledge-types.js';
import { indexTerms } from './search-terms.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const log = createLogger({ name: 'test', level: 'silent' });
const ada: VerifiedAgent = { id: 'agent-ada', handle: 'ada', node: 'n1' };

/** Sections of filler and, in section `at`, the router. */
const text = (n: number, at: number) =>
  Array.from({ length: n }, (_, i) =>
    i === at
      ? `## Part ${i}\n\nRestart the router before upgrading its firmware.`
      : `## Part ${i}\n\nNotes on gardening for item ${i}, with a few words about the weather.`,
  ).join('\n\n');

describe('KnowledgeBase.reindex', () => {
  let dir: string;
  let db: Database<typeof tables>;
  let bus: MemoryBus;
  const open = () =>
    new KnowledgeBase(db, new Outbox(db, bus, { node: 'n1', service: 'knowledge' }, log), null, log);
  const matches = async (term: string) =>
    Number(
      (
        await db.$client.execute({
          sql: 'select count(*) as n from chunks_fts where chunks_fts match ?',
          args: [`"${term}"`],
        })
      ).rows[0]!.n,
    );
  const version = async (name: string) =>
    (
      await db.$client.execute({
        sql: 'select version from lore_index_versions where name = ?',
        args: [name],
      })
    ).rows[0]?.version ?? null;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-kb-reindex-'));
    db = await openDatabase({
      url: `file:${join(dir, 'k.db')}`,
      schema: tables,
      migrationsFolder: MIGRATIONS,
    });
    bus = new MemoryBus();
  });

  afterEach(async () => {
    db.$client.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rewrites rows an older stemmer wrote, in resumable batches, and counts terms again when done', async () => {
    const kb = open();
    expect(await kb.reindex()).toEqual({ chunks: 0, articles: 0 }); // a fresh database
    await kb.add(ada, { name: 'net.md', format: 'markdown', text: text(30, 17), pages: null });
    expect(await kb.reindex()).toEqual({ chunks: 0, articles: 0 }); // written with this stemmer
    const chunks = Number((await db.$client.execute('select count(*) as n from chunks')).rows[0]!.n);
    expect(chunks).toBeGreaterThan(10);
    // As stemmer 1 wrote them ("router" was `rout`), and no version recorded: a database from
    // before the indexes were versioned.
    const rows = await db.$client.execute('select id, agent_id, heading_path, text from chunks');
    for (const r of rows.rows) {
      const terms = indexTerms(passageText(JSON.parse(String(r.heading_path)) as string[], String(r.text)));
      await db.$client.execute({ sql: 'delete from chunks_fts where rowid = ?', args: [Number(r.id)] });
      await db.$client.execute({
        sql: 'insert into chunks_fts (rowid, agent, terms) values (?, ?, ?)',
        args: [Number(r.id), agentToken(String(r.agent_id)), terms.replace(/\brouter\b/g, 'rout')],
      });
    }
    await db.$client.execute('delete from lore_index_versions');
    expect(await matches('router')).toBe(0);
    // A search on the old index counts (and caches) the agent's terms there: no router anywhere.
    expect((await kb.search(ada.id, 'router', { limit: 5 })).passages).toEqual([]);

    let checks = 0;
    const stopAfterOne = {
      get aborted() {
        return ++checks > 1;
      },
    } as AbortSignal;
    expect(await kb.reindex({ batch: 10, signal: stopAfterOne })).toEqual({ chunks: 10, articles: 0 });
    expect(await version('chunks_fts')).toBeNull();
    // The next run goes on from the last batch written.
    expect(await kb.reindex({ batch: 10 })).toEqual({ chunks: chunks - 10, articles: 0 });
    expect(await matches('router')).toBe(1);
    expect(await version('chunks_fts')).toBe(STEMMER_VERSION);
    expect(await version('articles_fts')).toBe(STEMMER_VERSION);
    // The counts cached on the old index were dropped: the same score as a fresh knowledge base's.
    const [hit] = (await kb.search(ada.id, 'router', { limit: 5 })).passages;
    expect(hit?.text).toContain('Restart the router');
    const [fresh] = (await open().search(ada.id, 'router', { limit: 5 })).passages;
    expect(hit?.score).toBe(fresh?.score);
    expect(await kb.reindex()).toEqual({ chunks: 0, articles: 0 });
  });
});
