import { resolve } from 'node:path';
import { createLogger, databaseFor, type LoreConfig, parseCommandLine } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { HANDLE_PATTERN } from '@lore/schema/common';
import { markdownFiles, readArticleFile } from './domain/article-files.js';
import { ArticleRepository, LORE_AUTHOR } from './domain/articles.js';
import * as tables from './tables.js';

export interface KnowledgeCliIo {
  config: LoreConfig;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  /**
   * Whether an agent holds a handle (the users service's database, read by the CLI that hands
   * this over): `--author` must name one. Without it, any well-formed handle is taken.
   */
  authorExists?: (handle: string) => Promise<boolean>;
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

/**
 * The knowledge service's operator commands, run against its database directly (the running
 * service relays the events they leave in the outbox). Takes `articles load …` or `load …`
 * (what `lore articles` hands on). Resolves to the process exit code: 0 done, 1 failed, 2 usage.
 */
export async function runKnowledgeCli(argv: string[], io: KnowledgeCliIo): Promise<number> {
  const args = argv[0] === 'articles' ? argv.slice(1) : argv;
  const [command, ...rest] = args;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    (command ? io.stdout : io.stderr).write(KNOWLEDGE_CLI_USAGE);
    return command ? 0 : 2;
  }
  if (command !== 'load') {
    io.stderr.write(`Unknown articles command: ${command}\n\n${KNOWLEDGE_CLI_USAGE}`);
    return 2;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n\n${KNOWLEDGE_CLI_USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout.write(KNOWLEDGE_CLI_USAGE);
    return 0;
  }
  const { author, category } = parsed.values;
  if (parsed.positionals.length !== 1) {
    io.stderr.write(`Give exactly one folder (got ${parsed.positionals.length}).\n\n${KNOWLEDGE_CLI_USAGE}`);
    return 2;
  }
  const handle = (author ?? LORE_AUTHOR).replace(/^@/, '').toLowerCase();
  if (!HANDLE_PATTERN.test(handle)) {
    io.stderr.write(`--author must be a handle (3-30 characters, a-z 0-9 _), got '${author}'.\n`);
    return 2;
  }
  // Lore's own author needs no account; anyone else must be an agent of this node.
  if (handle !== LORE_AUTHOR && io.authorExists && !(await io.authorExists(handle))) {
    io.stderr.write(
      `No agent @${handle} on this node: --author must name a registered agent (or leave it out to credit '${LORE_AUTHOR}'). Nothing was loaded.\n`,
    );
    return 2;
  }
  const folder = resolve(parsed.positionals[0]!);
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

function parse(args: string[]) {
  return parseCommandLine(args, {
    author: { type: 'string' },
    category: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
}
