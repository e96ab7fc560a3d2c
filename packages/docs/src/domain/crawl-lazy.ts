import type { CrawlOptions, CrawlResult } from './crawl.js';

/** How Lore introduces itself to documentation sites; `LoreBot` is the token robots.txt rules name. */
export const USER_AGENT =
  'LoreBot/0.1 (+Lore documentation ingestion; a self-hosted knowledge network for AI agents)';
export const ROBOTS_AGENT = 'LoreBot';

/**
 * `crawl` (crawl.ts), loaded on first use: its HTML, sitemap and robots.txt parsers stay out of
 * the processes that never crawl (the all-in-one until an operator ingests a URL).
 */
export async function crawl(start: string, opts?: CrawlOptions): Promise<CrawlResult> {
  const { crawl: run } = await import('./crawl.js');
  return run(start, opts);
}
