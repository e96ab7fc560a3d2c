import { join } from 'node:path';
import { EmbedderUnavailableError } from '@lore/embed';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './db/index.js';
import { tempDir } from './testing/index.js';
import { TextVectors } from './text-vectors.js';

/**
 * A deterministic embedder for the storage logic: letter counts of a-z (texts that share letters
 * point the same way). What a real model's vectors mean is the services' tests' business.
 */
function letters(model: string) {
  const calls: string[][] = [];
  return {
    calls,
    embedder: {
      model,
      async embed(texts: string[]) {
        calls.push(texts);
        return texts.map((t) => {
          const v = new Float32Array(26);
          for (const ch of t.toLowerCase()) {
            const i = ch.charCodeAt(0) - 97;
            if (i >= 0 && i < 26) v[i]! += 1;
          }
          return v;
        });
      },
    },
  };
}

async function open(dir: string) {
  const db = await openDatabase({ url: `file:${join(dir, 'v.db')}`, schema: {} });
  await db.$client.execute(
    'create table if not exists t_vectors (id text primary key, model text not null, hash text not null, vector F32_BLOB not null)',
  );
  return db;
}

describe('TextVectors', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('embeds in the background only what is missing or stale, and searches by cosine in the database', async () => {
    const db = await open(dir.path);
    const a = letters('m1');
    const v = new TextVectors(db, 't_vectors', a.embedder);
    const items = [
      { id: 'x:1', text: 'aaaa' },
      { id: 'x:2', text: 'bbbb' },
      { id: 'y:1', text: 'aaab' },
    ];
    v.refresh(items);
    await v.settled();
    expect(v.embedded).toBe(3);
    v.refresh(items);
    await v.settled();
    expect(v.embedded).toBe(3); // nothing stale

    v.refresh([{ id: 'x:2', text: 'bbbc' }]);
    await v.settled();
    expect(v.embedded).toBe(4);
    expect(a.calls.at(-1)).toEqual(['bbbc']);

    const near = await v.nearest('aaaa', { limit: 10, minSimilarity: 0.5 });
    expect(near!.map((h) => h.id)).toEqual(['x:1', 'y:1']);
    expect(near![0]!.similarity).toBeCloseTo(1, 5);
    const prefixed = await v.nearest('aaaa', { limit: 10, minSimilarity: 0.5, prefix: 'y:' });
    expect(prefixed!.map((h) => h.id)).toEqual(['y:1']);

    // Another model: every vector is stale, and the old ones are never compared with its queries.
    const b = letters('m2');
    const w = new TextVectors(db, 't_vectors', b.embedder);
    expect(await w.nearest('aaaa', { limit: 10, minSimilarity: 0 })).toEqual([]);
    w.refresh([...items.slice(0, 1), { id: 'x:2', text: 'bbbc' }, items[2]!]);
    await w.settled();
    expect(w.embedded).toBe(3);
    expect((await w.nearest('bbbb', { limit: 1, minSimilarity: 0 }))![0]!.id).toBe('x:2');

    await w.remove(['x:2']);
    expect((await w.nearest('bbbb', { limit: 1, minSimilarity: 0 }))![0]!.id).not.toBe('x:2');
    db.$client.close();
  });

  it('turns itself off when the model is unavailable, and is off without an embedder', async () => {
    const db = await open(dir.path);
    const broken = {
      model: 'broken',
      embed: async () => {
        throw new EmbedderUnavailableError('weights missing');
      },
    };
    const warnings: string[] = [];
    const log = { warn: (_: object, msg: string) => warnings.push(msg) } as never;
    const v = new TextVectors(db, 't_vectors', broken, log);
    v.refresh([{ id: 'z', text: 'zzz' }]);
    await v.settled();
    expect(v.enabled).toBe(false);
    expect(warnings).toEqual(['embedding model unavailable: searching by words only']);
    expect(await v.nearest('zzz', { limit: 1, minSimilarity: 0 })).toBeNull();

    const off = new TextVectors(db, 't_vectors', null);
    expect(off.enabled).toBe(false);
    off.refresh([{ id: 'z', text: 'zzz' }]);
    expect(await off.nearest('zzz', { limit: 1, minSimilarity: 0 })).toBeNull();
    expect(() => new TextVectors(db, 'bad; drop table x', null)).toThrow(/bad table name/);
    db.$client.close();
  });
  it('keeps an item whose write failed (a busy database) and stores it on the next try, rejecting nothing', async () => {
    const db = await open(dir.path);
    const a = letters('m-retry');
    let failures = 1;
    const run = db.run.bind(db);
    // The first write fails as a database busy with another writer would.
    (db as { run: typeof db.run }).run = ((query: Parameters<typeof db.run>[0]) => {
      if (failures-- > 0) return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
      return run(query);
    }) as typeof db.run;
    const warnings: string[] = [];
    const log = { warn: (_fields: unknown, message: string) => warnings.push(message) };
    const v = new TextVectors(db, 't_vectors', a.embedder, log as never);
    v.refresh([{ id: 'r:1', text: 'retry me' }]);
    await v.settled();
    expect(warnings).toEqual(['storing vectors failed; trying again']);
    await vi.waitFor(
      async () => {
        const rows = await db.$client.execute("select id, model from t_vectors where id = 'r:1'");
        expect(rows.rows.map((r) => [r.id, r.model])).toEqual([['r:1', 'm-retry']]);
      },
      { timeout: 10_000, interval: 50 },
    );
    await v.close();
  });
});
