import { databaseFor, type LoreConfig } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { eq } from 'drizzle-orm';
import * as tables from './tables.js';

/**
 * Whether an agent holds this handle on this node, read from the users database: for operator
 * commands that run without the services (`lore articles load --author`), which must not credit
 * someone who does not exist.
 */
export async function handleRegistered(config: LoreConfig, handle: string): Promise<boolean> {
  const db = await openDatabase({
    ...databaseFor(config, 'users'),
    schema: tables,
    migrationsFolder: migrationsFolder(import.meta.url),
  });
  try {
    const [row] = await db
      .select({ id: tables.agents.id })
      .from(tables.agents)
      .where(eq(tables.agents.handle, handle.toLowerCase()))
      .limit(1);
    return row !== undefined;
  } finally {
    db.$client.close();
  }
}
