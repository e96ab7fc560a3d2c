import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DocsStore, ingestInputs, parseDocument, runDocsCli } from '@lore/docs';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, migrationsFolder, openDatabase } from '@lore/kit/db';
import { appFetch, connectClient, ok } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { DocsCorpusIngested, KnowledgeSourceAdded } from '@lore/schema';
import { splitDocument } from '@lore/search';
import { createUsersService } from '@lore/users';
import { Corpus } from '../corpus.js';
import { type Row, row } from '../lib.js';
import { benchConfig, benchDeps, registerAgent, textSink, until } from '../services.js';
import { profiled } from '../tools/cpu-profile.js';

/** Chunks ingested by each path (BENCH_INGEST_CHUNKS to change). */
const CHUNKS = Number(process.env.BENCH_INGEST_CHUNKS ?? 20_000);
const SECTIONS_PER_SOURCE = 100;
const SECTIONS_PER_DOC = 10;
const TARGET = 5000;

const log = createLogger({ name: 'bench', level: 'silent' });
const say = (s: string) => process.stderr.write(`  ingest: ${s}\n`);
const seconds = (t0: number) => (performance.now() - t0) / 1000;

/**
 * The baseline: the same chunk texts inserted raw into an FTS5 table (the tokenizer the service
 * uses), in one transaction, 400 rows a statement. What SQLite alone needs to index this text.
 */
async function rawFts(path: string, texts: string[], tokenize: string): Promise<number> {
  const db = await openDatabase({ url: `file:${path}`, schema: {} });
  try {
    await db.$client.execute(`create virtual table raw_fts using fts5(text, tokenize='${tokenize}')`);
    const t0 = performance.now();
    const tx = await db.$client.transaction('write');
    for (let i = 0; i < texts.length; i += 400) {
      const part = texts.slice(i, i + 400);
      await tx.execute({
        sql: `insert into raw_fts(text) values ${part.map(() => '(?)').join(', ')}`,
        args: part,
      });
    }
    await tx.commit();
    return texts.length / seconds(t0);
  } finally {
    db.$client.close();
  }
}

/** The docs service's migrations, found through the package (as the service finds them). */
const docsMigrations = () => migrationsFolder(import.meta.resolve('@lore/docs'));

/**
 * Ingest rates: updateKnowledgeSources through MCP until every KnowledgeSourceAdded is
 * delivered, and the docs ingestion of a folder of Markdown files (ingestInputs with the event
 * relayed, and the `lore docs ingest` CLI), each beside raw FTS5 inserts of the same chunks.
 */
export async function ingestSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const rows: Row[] = [];
  const corpus = new Corpus(1234);

  // ---- knowledge
  const sources = Math.ceil(CHUNKS / SECTIONS_PER_SOURCE);
  const texts = Array.from({ length: sources }, (_, s) =>
    corpus.markdown(corpus.topic(s), SECTIONS_PER_SOURCE),
  );
  const bus = new MemoryBus();
  const deps = benchDeps(join(opts.dataDir, 'knowledge'), {}, bus);
  const users = await createUsersService(deps);
  const knowledge = await createKnowledgeService(deps);
  await users.start();
  await knowledge.start();
  let kRate: number;
  let pRate: number;
  let kChunks = 0;
  try {
    const agent = await registerAgent(users, 'bench_ingester');
    const client = await connectClient(appFetch(knowledge), { key: agent.key });
    let delivered = 0;
    await bus.listen(KnowledgeSourceAdded.subject, () => {
      delivered++;
    });
    // Warm-up: one small source (module loading, the splitter, JIT), not counted.
    await ok(client, 'updateKnowledgeSources', {
      file_name: 'warm-up.md',
      file_content: corpus.markdown(corpus.topic(9999), 5),
    });
    await until(async () => delivered >= 1, 10_000);
    delivered = 0;
    const t0 = performance.now();
    await profiled('ingest-knowledge', async () => {
      for (let s = 0; s < sources; s++) {
        const r = await ok<{ chunks: number }>(client, 'updateKnowledgeSources', {
          file_name: `source-${s}.md`,
          file_content: texts[s]!,
        });
        kChunks += r.data.chunks;
      }
      await until(async () => delivered >= sources, 60_000, 1);
    });
    kRate = kChunks / seconds(t0);
    say(`knowledge: ${kChunks} chunks in ${seconds(t0).toFixed(1)} s`);
    // Two uploaders at once (two agents' files arriving together): one source's parse in the
    // parser thread overlaps the other's writes on the main thread, as it does in service.
    const second = await registerAgent(users, 'bench_ingester_2');
    const client2 = await connectClient(appFetch(knowledge), { key: second.key });
    delivered = 0;
    let pChunks = 0;
    const t1 = performance.now();
    await Promise.all(
      [client, client2].map(async (c, u) => {
        for (let s = u; s < sources; s += 2) {
          const r = await ok<{ chunks: number }>(c, 'updateKnowledgeSources', {
            file_name: `pair-${s}.md`,
            file_content: texts[s]!,
          });
          pChunks += r.data.chunks;
        }
      }),
    );
    await until(async () => delivered >= sources, 60_000, 1);
    pRate = pChunks / seconds(t1);
    say(`knowledge, two uploaders: ${pChunks} chunks in ${seconds(t1).toFixed(1)} s`);
    await client2.close();
    await client.close();
  } finally {
    await knowledge.stop();
    await users.stop();
    await bus.close();
  }
  const kTexts: string[] = [];
  for (const t of texts)
    for (const c of await splitDocument(t, { format: 'markdown' }))
      kTexts.push(c.headingPath.length ? `${c.headingPath.join(' / ')}\n${c.text}` : c.text);
  const kRaw = await rawFts(join(opts.dataDir, 'raw-knowledge.db'), kTexts, 'unicode61 remove_diacritics 2');
  rows.push(
    row({
      suite: 'ingest',
      name: `updateKnowledgeSources via MCP, events delivered (${sources} sources × ${SECTIONS_PER_SOURCE} sections, 1 agent)`,
      value: kRate,
      unit: 'chunks/s',
      baseline: { name: 'raw FTS5 inserts, one transaction', value: kRaw },
      target: `≥ ${TARGET} chunks/s`,
      met: kRate >= TARGET,
    }),
    row({
      suite: 'ingest',
      name: `updateKnowledgeSources via MCP, events delivered (the same sources, 2 agents uploading at once)`,
      value: pRate,
      unit: 'chunks/s',
      baseline: { name: 'raw FTS5 inserts, one transaction', value: kRaw },
      target: `≥ ${TARGET} chunks/s`,
      met: pRate >= TARGET,
    }),
  );

  // ---- docs: a folder of Markdown files
  const docs = Math.ceil(CHUNKS / SECTIONS_PER_DOC);
  const folder = join(opts.dataDir, 'docs-corpus');
  const files: string[] = [];
  for (let d = 0; d < docs; d++) {
    const dir = join(folder, `area-${d % 20}`);
    if (d < 20) mkdirSync(dir, { recursive: true });
    const text = corpus.markdown(corpus.topic(d), SECTIONS_PER_DOC, 900, true);
    writeFileSync(join(dir, `doc-${d}.md`), text);
    files.push(text);
  }
  const dTexts: string[] = [];
  for (const f of files) {
    const parsed = parseDocument(f, 'markdown', 'x');
    for (const c of await splitDocument(parsed.content, { format: parsed.splitFormat })) dTexts.push(c.text);
  }
  const dRaw = await rawFts(
    join(opts.dataDir, 'raw-docs.db'),
    dTexts,
    'porter unicode61 remove_diacritics 2',
  );

  // Warm-up (module loading, the parser and splitter, JIT): 20 files into a throwaway database.
  {
    const warm = join(opts.dataDir, 'docs-warm-up');
    mkdirSync(warm, { recursive: true });
    for (let d = 0; d < 20; d++)
      writeFileSync(
        join(warm, `doc-${d}.md`),
        corpus.markdown(corpus.topic(5000 + d), SECTIONS_PER_DOC, 900, true),
      );
    const db: Database = await openDatabase({
      url: `file:${join(opts.dataDir, 'docs-warm-up.db')}`,
      schema: {},
      migrationsFolder: docsMigrations(),
    });
    await ingestInputs({ store: new DocsStore(db), log }, [warm], {
      source: 'warm',
      baseUri: 'https://warm.example/',
    });
    db.$client.close();
  }

  // (a) ingestInputs, as the CLI and the service run it, with the service's outbox relaying the event.
  {
    const dbus = new MemoryBus();
    const config = benchConfig(join(opts.dataDir, 'docs-a'));
    const db: Database = await openDatabase({
      url: `file:${config.LORE_DATA_DIR}/docs.db`,
      schema: {},
      migrationsFolder: docsMigrations(),
    });
    const outbox = new Outbox(db, dbus, { node: 'bench-node', service: 'docs' }, log);
    let event = false;
    await dbus.listen(DocsCorpusIngested.subject, () => {
      event = true;
    });
    outbox.start();
    try {
      const t0 = performance.now();
      const s = await profiled('ingest-docs', async () => {
        const summary = await ingestInputs({ store: new DocsStore(db), outbox, log }, [folder], {
          source: 'bench',
          baseUri: 'https://bench.example/',
        });
        await until(async () => event, 30_000, 1);
        return summary;
      });
      const rate = s.chunks / seconds(t0);
      say(`docs ingestInputs: ${s.chunks} chunks in ${seconds(t0).toFixed(1)} s`);
      rows.push(
        row({
          suite: 'ingest',
          name: `docs ingestInputs, event delivered (${docs} Markdown files × ${SECTIONS_PER_DOC} sections)`,
          value: rate,
          unit: 'chunks/s',
          baseline: { name: 'raw FTS5 inserts, one transaction', value: dRaw },
          target: `≥ ${TARGET} chunks/s`,
          met: rate >= TARGET,
        }),
      );
    } finally {
      await outbox.stop();
      db.$client.close();
      await dbus.close();
    }
  }

  // (b) `lore docs ingest` (runDocsCli): opens and migrates the database, ingests; the event waits
  // in the outbox for the service to relay it.
  {
    const config = benchConfig(join(opts.dataDir, 'docs-b'));
    const cli = textSink();
    const t0 = performance.now();
    const code = await runDocsCli(
      ['ingest', folder, '--source', 'bench', '--base-uri', 'https://bench.example/'],
      {
        config,
        stdout: cli.stream,
        stderr: cli.stream,
        isTTY: false,
      },
    );
    const s = seconds(t0);
    if (code !== 0) throw new Error(`lore docs ingest failed (${code}): ${cli.text()}`);
    // The command writes counts with thousands separators ("20,000 chunks").
    const chunks = Number((/; ([\d,]+) chunks in/.exec(cli.text())?.[1] ?? '0').replaceAll(',', ''));
    say(`docs CLI: ${cli.text().trim()}`);
    rows.push(
      row({
        suite: 'ingest',
        name: `lore docs ingest (runDocsCli, whole command; event left in the outbox)`,
        value: chunks / s,
        unit: 'chunks/s',
        baseline: { name: 'raw FTS5 inserts, one transaction', value: dRaw },
        target: `≥ ${TARGET} chunks/s`,
        met: chunks / s >= TARGET,
      }),
    );
  }
  return rows;
}
