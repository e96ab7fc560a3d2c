import { resolve } from 'node:path';
import {
  createLogger,
  databaseFor,
  type LoreConfig,
  MemoryBus,
  migrationsFolder,
  Outbox,
  openDatabase,
} from '@lore/kit';
import { HANDLE_PATTERN } from '@lore/schema';
import { markdownFiles, readArticleFile } from './domain/article-files.js';
import { ArticleRepository, LORE_AUTHOR } from './domain/articles.js';
import * as tables from './tables.js';

export interface KnowledgeCliIo {
  config: LoreConfig;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

export const KNOWLEDGE_CLI_USAGE = `Usage: lore articles load <folder> [--author HANDLE] [--category C]

Loads every Markdown file of <folder> (not recursive) into the community articles, by slug:
new files are added, changed ones updated, unchanged ones left alone.

Front matter (optional):
  ---
  title: Getting started with Lore        (default: the first "# " heading, else the file name)
  category: technical | philosophy | guides   (default: --category)
  tags: [onboarding, tools]               (at most 10)
  summary: One or two sentences.          (default: the start of the text)
  slug: getting-started                   (default: the file name)
  ---

Options:
  --author HANDLE   the author shown on the articles (default: lore)
  --category C      category for files whose front matter has none
`;

function option(args: string[], name: string): string | undefined | null {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v === undefined || v.startsWith('--') ? null : v;
}

/**
 * The knowledge service's operator commands, run against its database directly (the running
 * service relays the events they leave in the outbox). Resolves to the process exit code.
 */
export async function runKnowledgeCli(argv: string[], io: KnowledgeCliIo): Promise<number> {
  const args = [...argv];
  if (args[0] !== 'articles' || args[1] !== 'load' || args.includes('--help') || args.includes('-h')) {
    (args.includes('--help') || args.includes('-h') ? io.stdout : io.stderr).write(KNOWLEDGE_CLI_USAGE);
    return args.includes('--help') || args.includes('-h') ? 0 : 2;
  }
  const rest = args.slice(2);
  const author = option(rest, '--author');
  const category = option(rest, '--category');
  if (author === null || category === null) {
    io.stderr.write(`--author and --category need a value.\n\n${KNOWLEDGE_CLI_USAGE}`);
    return 2;
  }
  const unknown = rest.find((a) => a.startsWith('--'));
  if (unknown || rest.length !== 1) {
    io.stderr.write(
      `${unknown ? `Unknown option ${unknown}` : 'Give exactly one folder'}.\n\n${KNOWLEDGE_CLI_USAGE}`,
    );
    return 2;
  }
  const handle = (author ?? LORE_AUTHOR).replace(/^@/, '').toLowerCase();
  if (!HANDLE_PATTERN.test(handle)) {
    io.stderr.write(`--author must be a handle (3-30 characters, a-z 0-9 _), got '${author}'.\n`);
    return 2;
  }
  const folder = resolve(rest[0]!);
  let files: string[];
  try {
    files = await markdownFiles(folder);
  } catch (err) {
    io.stderr.write(`Cannot read folder ${folder}: ${(err as Error).message}\n`);
    return 1;
  }

  const db = await openDatabase({
    ...databaseFor(io.config, 'knowledge'),
    schema: tables,
    migrationsFolder: migrationsFolder(import.meta.url),
  });
  const log = createLogger({ name: 'lore-knowledge-cli', level: io.config.LORE_LOG_LEVEL });
  // Never started: the events stay in the outbox until the knowledge service relays them.
  const outbox = new Outbox(
    db,
    new MemoryBus(),
    { node: io.config.LORE_NODE_ID ?? 'cli', service: 'knowledge' },
    log,
  );
  const articles = new ArticleRepository(db, outbox);
  const counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  try {
    for (const file of files) {
      const parsed = await readArticleFile(file, category);
      if (!parsed.ok) {
        counts.failed++;
        io.stderr.write(`✗ ${file}: ${parsed.error}\n`);
        continue;
      }
      try {
        const outcome = await articles.upsertTrusted(parsed.draft, handle, 'operator');
        counts[outcome]++;
        io.stdout.write(`${outcome === 'unchanged' ? '=' : '✓'} ${parsed.draft.slug} (${outcome})\n`);
      } catch (err) {
        counts.failed++;
        io.stderr.write(`✗ ${file}: ${(err as Error).message}\n`);
      }
    }
  } finally {
    db.$client.close();
  }
  io.stdout.write(
    `Loaded ${files.length} file${files.length === 1 ? '' : 's'} from ${folder}: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed.\n`,
  );
  return counts.failed ? 1 : 0;
}
