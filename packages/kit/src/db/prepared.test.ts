import { eq, sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterAll, describe, expect, it } from 'vitest';
import { SqldProcess, tempDir } from '../testing/index.js';
import { type Database, openDatabase, preparedReads } from './index.js';
import { preparedSelect } from './prepared.js';

const people = sqliteTable('people', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tags: text('tags', { mode: 'json' }).$type<string[]>(),
  active: integer('active', { mode: 'boolean' }).notNull(),
  joinedAt: integer('joined_at'),
});
const pets = sqliteTable('pets', {
  id: integer('id').primaryKey(),
  ownerId: text('owner_id'),
  name: text('name').notNull(),
});
const schema = { people, pets };

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function seeded(url: string): Promise<Database<typeof schema>> {
  const db = await openDatabase({ url, schema });
  cleanups.push(() => db.$client.close());
  await db.run(
    sql`create table people (id text primary key, name text not null, tags text, active integer not null, joined_at integer)`,
  );
  await db.run(sql`create table pets (id integer primary key, owner_id text, name text not null)`);
  await db.insert(people).values([
    { id: 'a', name: 'Ann', tags: ['go', 'rust'], active: true, joinedAt: 5 },
    { id: 'b', name: 'Bob', tags: null, active: false, joinedAt: null },
  ]);
  await db.insert(pets).values([
    { ownerId: 'a', name: 'Rex' },
    { ownerId: 'a', name: 'Tom' },
    { ownerId: null, name: 'Stray' },
  ]);
  return db;
}

async function onFile(): Promise<string> {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return `file:${dir.path}/people.db`;
}

async function onSqld(): Promise<string> {
  const dir = tempDir('lore-sqld-');
  const server = new SqldProcess(dir.path);
  await server.start();
  cleanups.push(dir.cleanup, () => server.kill());
  return server.url;
}

describe.each([
  ['a local file', onFile],
  ['a libSQL server (sqld)', onSqld],
])('preparedSelect on %s', (_name, url) => {
  it('returns what the drizzle prepared select returns: mapped columns, nested selections, nulls of a left join', async () => {
    const db = await seeded(await url());
    const reads = preparedReads(db);
    const queries = {
      byId: db
        .select()
        .from(people)
        .where(eq(people.id, sql.placeholder('id')))
        .prepare(),
      withPets: db
        .select({ person: people, pet: pets.name })
        .from(pets)
        .leftJoin(people, eq(people.id, pets.ownerId))
        .orderBy(pets.id)
        .limit(sql.placeholder('limit'))
        .prepare(),
    };
    for (const id of ['a', 'b', 'nobody']) {
      const fast = preparedSelect(reads, queries.byId);
      expect(await fast.get({ id })).toEqual(await queries.byId.get({ id }));
      expect(await fast.all({ id })).toEqual(await queries.byId.all({ id }));
    }
    const fast = preparedSelect(reads, queries.withPets);
    for (const limit of [0, 2, 10])
      expect(await fast.all({ limit })).toEqual(await queries.withPets.all({ limit }));
    const all = await fast.all({ limit: 10 });
    expect(all.at(-1)).toEqual({ person: null, pet: 'Stray' });
    expect(all[0]).toEqual({
      person: { id: 'a', name: 'Ann', tags: ['go', 'rust'], active: true, joinedAt: 5 },
      pet: 'Rex',
    });
  });

  it('sees a write made after the statement was kept', async () => {
    const db = await seeded(await url());
    const byId = preparedSelect(
      preparedReads(db),
      db
        .select()
        .from(people)
        .where(eq(people.id, sql.placeholder('id')))
        .prepare(),
    );
    expect(await byId.get({ id: 'c' })).toBeUndefined();
    await db.insert(people).values({ id: 'c', name: 'Cy', active: true });
    expect(await byId.get({ id: 'c' })).toMatchObject({ id: 'c', name: 'Cy', tags: null, active: true });
  });
});
