import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { FTS_TOKENIZER, stemmedMatchQuery, stemmedTerms } from './fts-index.js';
import { stemmedText } from './stem.js';

const packages = fileURLToPath(new URL('../../', import.meta.url));

/** The FTS5 tables (name → CREATE statement) a package's migrations leave, applied in journal order. */
async function ftsTablesAfterMigrations(pkg: string): Promise<Map<string, string>> {
  const folder = join(packages, pkg, 'migrations');
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const db = createClient({ url: ':memory:' });
  try {
    for (const { tag } of journal.entries) {
      const text = readFileSync(join(folder, `${tag}.sql`), 'utf8');
      for (const stmt of text.split('--> statement-breakpoint')) if (stmt.trim()) await db.execute(stmt);
    }
    const rows = await db.execute(
      "select name, sql from sqlite_master where type = 'table' and sql like 'create virtual table%fts5%'",
    );
    return new Map(rows.rows.map((r) => [String(r.name), String(r.sql)]));
  } finally {
    db.close();
  }
}

describe('the FTS5 tables of every service', () => {
  const withMigrations = readdirSync(packages).filter((p) =>
    existsSync(join(packages, p, 'migrations', 'meta', '_journal.json')),
  );

  it('use the shared tokenizer and never porter, after every migration', async () => {
    const found: string[] = [];
    for (const pkg of withMigrations) {
      for (const [name, sql] of await ftsTablesAfterMigrations(pkg)) {
        found.push(`${pkg}.${name}`);
        expect(sql, `${pkg}.${name}`).not.toMatch(/porter/i);
        expect(/tokenize\s*=\s*'([^']*)'/i.exec(sql)?.[1], `${pkg}.${name}`).toBe(FTS_TOKENIZER);
      }
    }
    // The tables this check is about: if the discovery above found none of them, it checked nothing.
    expect(found).toEqual(
      expect.arrayContaining([
        'docs.chunks_fts',
        'knowledge.chunks_fts',
        'knowledge.articles_fts',
        'queries.questions_fts',
      ]),
    );
  });
});

describe('stemmed query terms', () => {
  it('stems words and phrases as the index is written, de-duplicated', () => {
    expect(stemmedTerms(['configuring', 'configured', 'json web tokens', '!!'])).toEqual([
      stemmedText('configure'),
      'json web token',
    ]);
  });

  it('finds a row written with stemmedText for another form of the word', async () => {
    const db = createClient({ url: ':memory:' });
    try {
      await db.execute(`create virtual table t using fts5(body, tokenize = '${FTS_TOKENIZER}')`);
      await db.execute({
        sql: 'insert into t (rowid, body) values (1, ?)',
        args: [stemmedText('Deploying the servers')],
      });
      await db.execute({
        sql: 'insert into t (rowid, body) values (2, ?)',
        args: [stemmedText('A quiet café')],
      });
      const hits = async (q: string) =>
        (
          await db.execute({
            sql: 'select rowid from t where t match ? order by rowid',
            args: [stemmedMatchQuery(q)!],
          })
        ).rows.map((r) => Number(r.rowid));
      expect(await hits('how was the server deployed?')).toEqual([1]);
      expect(await hits('cafe')).toEqual([2]);
      expect(stemmedMatchQuery('the of and')).toBeNull();
    } finally {
      db.close();
    }
  });
});
