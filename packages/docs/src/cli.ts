import { createLogger, databaseFor, type LoreConfig, loadNodeIdentity, parseCommandLine } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { docsSettings } from './config.js';
import { ingestInputs, summaryLine } from './domain/ingest.js';
import { DocsStore } from './domain/store.js';
import * as tables from './tables.js';

export interface DocsCliIo {
  config: LoreConfig;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Show a progress bar (stderr is a terminal). */
  isTTY: boolean;
}

export const DOCS_USAGE = `Usage: lore docs ingest <path or URL>... [options]

Loads documentation into the docs corpus: folders (recursively) or files of Markdown (.md,
.markdown), MDX (.mdx), HTML (.html, .htm) and plain text (.txt), or web pages (a start page,
whose links are followed within its folder, or a sitemap.xml). Re-ingesting a source updates
changed documents, removes vanished ones and leaves unchanged ones alone.

Options:
  --source NAME       the data source (corpus) name; default: the --base-uri host, the URL's
                      host, or the folder's name
  --base-uri URL      where the files are published: documents are named
                      documents/<host>/<path> (default documents/local/<folder>/<path>)
  --concurrency N     pages fetched at once from a site (default 4)
  --max-pages N       most pages fetched from one URL (default 1000)
  --keep-missing      do not remove documents of the source that were not seen
  -h, --help          this text

The docs database is opened directly (LORE_DOCS_DB_URL, LORE_DB_URL or $LORE_DATA_DIR/docs.db):
the service need not be running.
`;

/** `lore docs …`: returns the exit code (0 done, 1 failed, 2 usage). */
export async function runDocsCli(argv: string[], io: DocsCliIo): Promise<number> {
  const args = argv[0] === 'docs' ? argv.slice(1) : argv;
  const [command, ...rest] = args;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.stdout.write(DOCS_USAGE);
    return command ? 0 : 2;
  }
  if (command !== 'ingest') {
    io.stderr.write(`Unknown docs command: ${command}\n\n${DOCS_USAGE}`);
    return 2;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n\n${DOCS_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(DOCS_USAGE);
    return 0;
  }
  if (!positionals.length) {
    io.stderr.write(`Nothing to ingest: give at least one path or URL.\n\n${DOCS_USAGE}`);
    return 2;
  }
  const concurrency = values.concurrency ? Number(values.concurrency) : undefined;
  const maxPages = values['max-pages'] ? Number(values['max-pages']) : undefined;
  if ((concurrency !== undefined && !(concurrency >= 1)) || (maxPages !== undefined && !(maxPages >= 1))) {
    io.stderr.write('--concurrency and --max-pages take a positive number.\n');
    return 2;
  }

  const { config } = io;
  const settings = docsSettings(config);
  const log = createLogger({
    name: 'lore-docs',
    level: config.LORE_LOG_LEVEL === 'info' ? 'warn' : config.LORE_LOG_LEVEL,
  });
  const db = await openDatabase({
    ...databaseFor(config, 'docs'),
    schema: tables,
    migrationsFolder: migrationsFolder(import.meta.url),
  });
  // The event is written to the outbox table; the service relays it when it runs.
  const node = loadNodeIdentity(config);
  const outbox = new Outbox(db, new MemoryBus(), { node: node.id, service: 'docs' }, log);
  // The progress bar is loaded only where it is drawn (a terminal), not with the all-in-one.
  const cliProgress = io.isTTY ? (await import('cli-progress')).default : undefined;
  const bar = cliProgress
    ? new cliProgress.SingleBar(
        {
          stream: io.stderr as NodeJS.WriteStream,
          format: ' {bar} {percentage}% | {value}/{total} documents | {eta_formatted} left',
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let barStarted = false;
  const store = new DocsStore(db);
  try {
    // The index in the form this code writes before anything is added: on a new database this
    // only records the version (so the service's start has nothing to rewrite); on one written by
    // an older version it rewrites the old rows first.
    await store.reindex();
    const summary = await ingestInputs(
      // Vectors are computed by the service, in the background, when it next starts or searches.
      { store, outbox, log },
      positionals,
      {
        source: values.source,
        baseUri: values['base-uri'],
        prune: !values['keep-missing'],
        crawl: {
          allowPrivate: settings.LORE_CRAWL_ALLOW_PRIVATE,
          ...(concurrency ? { concurrency } : {}),
          ...(maxPages ? { maxPages } : {}),
        },
        onFetch: (url, fetched) => {
          if (io.isTTY) io.stderr.write(`\r\x1b[Kfetching ${fetched}: ${url.slice(0, 100)}`);
        },
        onProgress: (done, total) => {
          if (!bar) return;
          if (!barStarted) {
            if (io.isTTY) io.stderr.write('\r\x1b[K');
            bar.start(total, done);
            barStarted = true;
          } else bar.update(done);
        },
      },
    );
    bar?.stop();
    for (const f of summary.failed) io.stderr.write(`failed: ${f.origin}: ${f.reason}\n`);
    for (const s of summary.skipped.slice(0, 20)) io.stderr.write(`skipped: ${s.url}: ${s.reason}\n`);
    if (summary.skipped.length > 20) io.stderr.write(`skipped: … and ${summary.skipped.length - 20} more\n`);
    io.stdout.write(`${summaryLine(summary)}\n`);
    return summary.failed.length && !(summary.added + summary.updated + summary.unchanged) ? 1 : 0;
  } catch (err) {
    bar?.stop();
    io.stderr.write(`lore docs ingest: ${(err as Error).message}\n`);
    return 1;
  } finally {
    db.$client.close();
  }
}

function parse(args: string[]) {
  return parseCommandLine(args, {
    source: { type: 'string' },
    'base-uri': { type: 'string' },
    concurrency: { type: 'string' },
    'max-pages': { type: 'string' },
    'keep-missing': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
}
