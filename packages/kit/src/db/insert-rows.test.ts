import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/index.js';
import { SqldProcess } from '../testing/sqld.js';
import { type Database, insertRows, insertRowsReturning, openDatabase } from './index.js';
import { type RowValue, rowsJson } from './insert-rows.js';

const dirs: Array<{ cleanup(): void }> = [];
const opened: Database[] = [];
const sqlds: SqldProcess[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.$client.close();
});
afterAll(async () => {
  for (const s of sqlds.splice(0)) await s.kill();
  for (const d of dirs.splice(0)) d.cleanup();
});

async function fileDb(): Promise<Database> {
  const dir = tempDir();
  dirs.push(dir);
  const db = await openDatabase({ url: `file:${join(dir.path, 'db.sqlite')}`, schema: {} });
  opened.push(db);
  return db;
}

async function sqldDb(): Promise<Database> {
  const dir = tempDir('lore-sqld-');
  dirs.push(dir);
  const server = new SqldProcess(dir.path);
  sqlds.push(server);
  await server.start();
  const db = await openDatabase({ url: server.url, schema: {} });
  opened.push(db);
  return db;
}

// Texts a JSON round trip could change: escapes, quotes, non-BMP characters, a literal "\ud800"
// (backslash and letters, which must stay), and lone surrogates (which binding makes U+FFFD).
const TEXTS = [
  'plain',
  'quote " backslash \\ tab \t newline \n',
  'é ü 日本語 😀 \u2028 \u2029',
  'literal \\ud800 and \\\\ud800, not a surrogate',
  'lone high \ud800 here',
  'lone low \udc00 here',
  'escaped backslash then lone \\\ud83d',
  '😀 paired, then lone \ud83d',
  '',
];

const wellFormedText = (t: string) =>
  t.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

describe.each([
  ['a local file', fileDb],
  ['a libSQL server (sqld)', sqldDb],
])('insertRows on %s', (_, open) => {
  it('stores text, null and integers through the JSON form as binding them one by one does', async () => {
    const db = await open();
    await db.$client.execute('create table t (id integer primary key autoincrement, n integer, v text)');
    const rows: RowValue[][] = TEXTS.map((v, i) => [i * 1_000_000_007, v]);
    rows.push([null, null], [-(2 ** 53) + 1, 'min'], [2 ** 53 - 1, 'max']);
    const ids = await db.transaction((tx) =>
      insertRowsReturning<{ id: number; n: number | null }>(tx, 't', ['n', 'v'], rows, 'id, n'),
    );
    expect(ids.map((r) => Number(r.id))).toEqual(rows.map((_, i) => i + 1));
    // The same rows bound one value a parameter (a fraction sends them the flat way), their lone
    // surrogates made U+FFFD first: the local driver does that when binding, a server refuses them.
    const wellFormed = rows.map(([n, v]): RowValue[] => [n!, typeof v === 'string' ? wellFormedText(v) : v!]);
    await db.transaction((tx) => insertRows(tx, 't', ['n', 'v'], [...wellFormed, [0.5, 'flat']]));
    const stored = (
      await db.$client.execute('select n, v, typeof(n) as tn, typeof(v) as tv from t order by id')
    ).rows;
    const half = rows.length;
    expect(stored).toHaveLength(2 * half + 1);
    for (let i = 0; i < half; i++) {
      const [json, flat] = [stored[i]!, stored[half + i]!];
      expect([json.n, json.v, json.tn, json.tv]).toEqual([flat.n, flat.v, flat.tn, flat.tv]);
      expect(json.n === null ? null : Number(json.n)).toBe(rows[i]![0]);
    }
    expect(stored[4]!.v).toBe('lone high \ufffd here');
    expect(stored[3]!.v).toBe('literal \\ud800 and \\\\ud800, not a surrogate');
    expect(stored[6]!.v).toBe('escaped backslash then lone \\\ufffd');
    expect(stored[7]!.v).toBe('😀 paired, then lone \ufffd');
  });

  it('keeps an upsert suffix working in the JSON form', async () => {
    const db = await open();
    await db.$client.execute('create table t (id integer primary key, v text)');
    await db.transaction((tx) =>
      insertRows(
        tx,
        't',
        ['id', 'v'],
        [
          [1, 'a'],
          [2, 'b'],
        ],
      ),
    );
    await db.transaction((tx) =>
      insertRows(
        tx,
        't',
        ['id', 'v'],
        [
          [2, 'c'],
          [3, 'd'],
        ],
        'on conflict (id) do update set v = excluded.v',
      ),
    );
    const rows = (await db.$client.execute('select id, v from t order by id')).rows;
    expect(rows.map((r) => [Number(r.id), r.v])).toEqual([
      [1, 'a'],
      [2, 'c'],
      [3, 'd'],
    ]);
    await expect(db.transaction((tx) => tx.run(sql`select * from t`))).resolves.toBeDefined();
  });
});

describe('rowsJson', () => {
  it('replaces lone surrogates only', () => {
    expect(JSON.parse(rowsJson([TEXTS]))).toEqual([TEXTS.map(wellFormedText)]);
  });
});
