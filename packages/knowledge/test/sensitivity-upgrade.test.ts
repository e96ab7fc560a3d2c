import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@lore/kit/db';
import { appFetch, connectClient, eventually, ok, tempDir } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { sensitivityVersion } from '../src/domain/sensitivity.js';
import { createKnowledgeService } from '../src/index.js';
import * as tables from '../src/tables.js';
import { startEnv } from './helpers.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

type Listed = { sources: Array<{ name: string; sensitivity: Record<string, number> }> };

describe('passages classified by older rules', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const url = `file:${join(dir.path, 'knowledge.db')}`;

  it('are classified again in the background at start', async () => {
    const t = await startEnv({ LORE_KNOWLEDGE_DB_URL: url });
    try {
      const owner = await t.register('owner');
      await ok(owner.client, 'updateKnowledgeSources', {
        file_name: 'team.md',
        file_content: '# Team\n\nPriya has type 1 diabetes and keeps insulin in the fridge.\n',
      });
      const counts = async (client: typeof owner.client) =>
        (await ok<Listed>(client, 'listKnowledgeSources')).data.sources[0]!.sensitivity;
      await eventually('the passage to be classified', async () =>
        (await counts(owner.client)).unclassified === 0 ? true : undefined,
      );
      expect((await counts(owner.client)).health).toBe(1);
      await t.knowledge.stop();

      // As older rules would have left it: another version, and a verdict they did not reach.
      const db = await openDatabase({ url, schema: tables, migrationsFolder: MIGRATIONS });
      try {
        await db.$client.execute(`update chunks set sensitivity = '[]', sensitivity_version = 'r0'`);
        const again = await createKnowledgeService(t.env.deps);
        await again.start();
        try {
          const client = await connectClient(appFetch(again.app), { key: owner.key });
          await eventually('the passage to be classified again', async () =>
            (await counts(client)).unclassified === 0 ? true : undefined,
          );
          expect(await counts(client)).toMatchObject({ health: 1, unclassified: 0 });
          const rows = (await db.$client.execute('select sensitivity, sensitivity_version as v from chunks'))
            .rows;
          expect(rows.map((r) => [JSON.parse(String(r.sensitivity)), r.v])).toEqual([
            [['health'], sensitivityVersion(null)],
          ]);
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
