import { join } from 'node:path';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, migrationsFolder, openDatabase } from '@lore/kit/db';
import { eventually, migrationsBefore, tempDir } from '@lore/kit/testing';
import { FTS_TOKENIZER, STEMMER_VERSION } from '@lore/search';
import { afterAll, describe, expect, it } from 'vitest';
import { QuestionRepository } from '../src/domain/questions.js';
import * as tables from '../src/tables.js';
import { startNode } from './support.js';

const folder = migrationsFolder(new URL('../src/x.ts', import.meta.url).href);

const one = async (db: Database, sql: string) => (await db.$client.execute(sql)).rows[0];

describe('a queries database with the porter question index', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const url = `file:${join(dir.path, 'queries.db')}`;
  const QUESTIONS = 450; // more than one batch of the rewrite

  it('is rewritten to stemmed rows at start, and finds a question by another form of its words', async () => {
    const old = await openDatabase({
      url,
      schema: tables,
      migrationsFolder: migrationsBefore(folder, dir.path, '0003_questions_fts_stemmed'),
    });
    expect(
      String((await one(old, `select sql from sqlite_master where name = 'questions_fts'`))?.sql),
    ).toMatch(/porter/);
    for (let i = 0; i < QUESTIONS; i++) {
      const id = `qry-old${String(i).padStart(4, '0')}`;
      const question =
        i === 7 ? 'Which servers were deployed yesterday?' : `Is question ${i} about gardening?`;
      await old.$client.execute({
        sql: `insert into questions (id, asker_id, asker_handle, question, broadcast, asked_at, expires_at)
          values (?, 'agent-ada', 'ada', ?, 0, ?, ?)`,
        args: [id, question, i, i + 1000],
      });
      await old.$client.execute({
        sql: 'insert into questions_fts (question, question_id, asker_id) values (?, ?, ?)',
        args: [question, id, 'agent-ada'],
      });
    }
    old.$client.close();

    const node = await startNode({ LORE_QUERIES_DB_URL: url });
    const db = await openDatabase({ url, schema: tables, migrationsFolder: folder });
    try {
      const sqlText = String(
        (await one(db, `select sql from sqlite_master where name = 'questions_fts'`))?.sql,
      );
      expect(sqlText).not.toMatch(/porter/);
      expect(sqlText).toContain(`tokenize = '${FTS_TOKENIZER}'`);
      await eventually('the question index to be rewritten', async () => {
        const n = Number((await one(db, 'select count(*) as n from questions_fts'))?.n);
        return n === QUESTIONS;
      });
      const log = createLogger({ name: 'test', level: 'silent' });
      const repo = new QuestionRepository(
        db,
        new Outbox(db, new MemoryBus(), { node: 'n', service: 'queries' }, log),
      );
      const found = await repo.find('agent-ada', 'the server deployment');
      expect(found).toMatchObject({ matchedBy: 'search', row: { id: 'qry-old0007' } });
      // Another asker's questions stay out of reach.
      expect(await repo.find('agent-bob', 'the server deployment')).toBeNull();
    } finally {
      db.$client.close();
      await node.stop();
    }
  });
});

describe('a queries database whose question index an older stemmer wrote', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const url = `file:${join(dir.path, 'queries.db')}`;
  const log = createLogger({ name: 'test', level: 'silent' });
  const repoOf = (db: Database<typeof tables>) =>
    new QuestionRepository(db, new Outbox(db, new MemoryBus(), { node: 'n', service: 'queries' }, log));

  it('is rewritten at start although it holds a row for every question', async () => {
    const db = await openDatabase({ url, schema: tables, migrationsFolder: folder });
    try {
      // Every question indexed, as stemmer 1 wrote it ("routers" was `rout`), and recorded so.
      await db.$client.execute(`insert into questions (id, asker_id, asker_handle, question, broadcast, asked_at, expires_at)
        values ('qry-router', 'agent-ada', 'ada', 'Which routers need a restart?', 0, 1, 1001)`);
      await db.$client.execute(`insert into questions_fts (question, question_id, asker_id)
        values ('which rout need a restart', 'qry-router', 'agent-ada')`);
      await db.$client.execute(
        `insert into lore_index_versions (name, version) values ('questions_fts', '1')`,
      );
      expect(await repoOf(db).find('agent-ada', 'the router')).toBeNull();

      const node = await startNode({ LORE_QUERIES_DB_URL: url });
      try {
        await eventually('the question index to be rewritten', async () => {
          const v = await one(db, `select version from lore_index_versions where name = 'questions_fts'`);
          return v?.version === STEMMER_VERSION;
        });
        const found = await repoOf(db).find('agent-ada', 'the router');
        expect(found).toMatchObject({ matchedBy: 'search', row: { id: 'qry-router' } });
        expect(Number((await one(db, 'select count(*) as n from questions_fts'))?.n)).toBe(1);
      } finally {
        await node.stop();
      }
    } finally {
      db.$client.close();
    }
  });
});
