import { fileURLToPath } from 'node:url';
import type { Logger } from '@lore/kit';
import { markdownFiles, readArticleFile } from './article-files.js';
import { type ArticleRepository, LORE_AUTHOR } from './articles.js';

/** The folder of articles Lore ships (`packages/knowledge/articles`), from src/ or dist/. */
export const shippedArticlesFolder = (moduleUrl: string) => fileURLToPath(new URL('../articles', moduleUrl));

/**
 * Puts Lore's own articles in the articles table, by slug: created the first time, updated
 * when the shipped text changed, left alone otherwise — so every start may run it.
 */
export async function seedArticles(
  articles: ArticleRepository,
  folder: string,
  log: Logger,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  let files: string[];
  try {
    files = await markdownFiles(folder);
  } catch (err) {
    log.warn({ err: (err as Error).message, folder }, 'no shipped articles to seed');
    return counts;
  }
  for (const file of files) {
    const parsed = await readArticleFile(file);
    if (!parsed.ok) {
      counts.failed!++;
      log.warn({ file, err: parsed.error }, 'shipped article skipped');
      continue;
    }
    try {
      counts[await articles.upsertTrusted(parsed.draft, LORE_AUTHOR, 'seed')]!++;
    } catch (err) {
      counts.failed!++;
      log.warn({ file, err: (err as Error).message }, 'shipped article skipped');
    }
  }
  if (counts.created || counts.updated) log.info(counts, 'shipped articles seeded');
  return counts;
}
