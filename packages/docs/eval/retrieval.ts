import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '@lore/ingest';
import { createLogger, databaseFor, loadConfig } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { ftsMatchQuery } from '@lore/search';
import { sql } from 'drizzle-orm';
import { ingestInputs } from '../src/domain/ingest.js';
import { DocsSearch } from '../src/domain/search.js';
import { DocsStore } from '../src/domain/store.js';
import { ChunkVectors } from '../src/domain/vectors.js';
import * as tables from '../src/tables.js';
import { type EvalQuestion, HONO_QUESTIONS, UNDICI_QUESTIONS } from './questions.js';

/** A corpus of the evaluation: a folder of Markdown, and its questions. */
export interface EvalCorpus {
  name: string;
  root: string;
  baseUri: string;
  /** Document names are this prefix + the page's path. */
  prefix: string;
  questions: EvalQuestion[];
}

/** Recall at 1 and 5 pages and the mean reciprocal rank (over the first 10 pages). */
export interface Metrics {
  questions: number;
  recall1: number;
  recall5: number;
  mrr: number;
}

export interface CorpusResult {
  corpus: string;
  documents: number;
  chunks: number;
  /** Lore's ranking as the service runs it: words and meaning fused when there is an embedder. */
  lore: Metrics;
  baseline: Metrics;
  /** With an embedder: Lore's words alone and meaning alone, in the same run. */
  words?: Metrics;
  meaning?: Metrics;
  /** Seconds the background embedding of the corpus took (with an embedder). */
  embedSeconds?: number;
  /** Each ranking's figures on each half of the questions (see `Half`). */
  halves: Halves;
  /**
   * Questions whose page Lore's ranking did not put first: the question, the expected page(s),
   * the rank of the first expected page (0 when not in the first 10) and the pages above it.
   */
  misses: Miss[];
  /** Median milliseconds per Lore search and per baseline search. */
  msPerSearch: { lore: number; baseline: number };
  /** The 99th percentile of the same (with fewer than 100 questions, the slowest search). */
  p99PerSearch: { lore: number; baseline: number };
}

/** A question whose page was not ranked first. */
export interface Miss {
  question: string;
  expected: string[];
  /** 1-based rank of the first expected page; 0 when it is not among the first `DEPTH`. */
  rank: number;
  /** The pages ranked above it (the first 5 when it is not found). */
  above: string[];
}

/**
 * The two halves of the set: questions at even positions of each corpus's list ("tune") and at
 * odd positions ("held-out"). Ranking changes are judged on the tuning half; the held-out half
 * shows whether a change generalises beyond the questions it was judged on.
 */
export type Half = 'tune' | 'held-out';
export const halfOf = (index: number): Half => (index % 2 === 0 ? 'tune' : 'held-out');

/** The figures of each half, for every ranking of the run (words and meaning with an embedder). */
export interface Halves {
  lore: Record<Half, Metrics>;
  baseline: Record<Half, Metrics>;
  words?: Record<Half, Metrics>;
  meaning?: Record<Half, Metrics>;
}

/** Pages ranked per question. */
const DEPTH = 10;
/** Chunks fetched to fill DEPTH distinct pages. */
const CHUNKS = 40;
/** Size of the baseline's chunks, in characters. */
export const BASELINE_CHUNK = 1500;

const here = import.meta.dirname;

/** The corpora present on this machine: undici always (it ships here), Hono when the shared corpus is laid out beside the repository. */
export function evalCorpora(): EvalCorpus[] {
  const hono = [
    join(here, '../../../../shared/corpora/hono-docs/docs'),
    '/work/shared/corpora/hono-docs/docs',
  ].find((p) => existsSync(p));
  const out: EvalCorpus[] = [];
  if (hono)
    out.push({
      name: 'hono',
      root: hono,
      baseUri: 'https://hono.dev/docs/',
      prefix: 'documents/hono.dev/docs/',
      questions: HONO_QUESTIONS,
    });
  out.push({
    name: 'undici',
    root: join(here, 'corpora/undici/docs'),
    baseUri: 'https://undici.nodejs.org/docs/',
    prefix: 'documents/undici.nodejs.org/docs/',
    questions: UNDICI_QUESTIONS,
  });
  return out;
}

/** Distinct documents in ranked order, at most `n`. */
function distinct(documents: string[], n = DEPTH): string[] {
  return [...new Set(documents)].slice(0, n);
}

function score(rankings: string[][], expected: string[][]): Metrics {
  let r1 = 0;
  let r5 = 0;
  let rr = 0;
  rankings.forEach((ranked, i) => {
    const rank = ranked.findIndex((d) => expected[i]!.includes(d));
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 5) r5++;
    if (rank >= 0) rr += 1 / (rank + 1);
  });
  const n = Math.max(1, rankings.length);
  return { questions: rankings.length, recall1: r1 / n, recall5: r5 / n, mrr: rr / n };
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;
const median = (xs: number[]) => quantile(xs, 0.5);

/**
 * The baseline: plain BM25 (FTS5's, Porter stemming, stop words dropped from the query) over the
 * documents' text cut into ~1,500-character chunks at whitespace — no titles, headings, URLs,
 * phrases or synonyms — ranked in the same database as Lore's own index.
 */
async function buildBaseline(store: DocsStore): Promise<(q: string) => Promise<string[]>> {
  const db = store.db;
  await db.run(
    sql.raw(
      `create virtual table baseline_fts using fts5(document unindexed, text, tokenize='porter unicode61')`,
    ),
  );
  const docs = await store.documents([...(await store.index()).keys()]);
  for (const d of docs.values()) {
    for (const piece of fixedChunks(d.content, BASELINE_CHUNK)) {
      await db.run(sql`insert into baseline_fts (document, text) values (${d.name}, ${piece})`);
    }
  }
  return async (q) => {
    const match = ftsMatchQuery(q, 16);
    if (!match) return [];
    const rows = await db.all<{ document: string }>(
      sql`select document from baseline_fts where baseline_fts match ${match} order by bm25(baseline_fts) limit ${CHUNKS}`,
    );
    return distinct(rows.map((r) => r.document));
  };
}

/** `text` cut into pieces of about `size` characters, at whitespace. */
export function fixedChunks(text: string, size: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const ws = text.lastIndexOf(' ', end);
      const nl = text.lastIndexOf('\n', end);
      const cut = Math.max(ws, nl);
      if (cut > start + size / 2) end = cut;
    }
    const piece = text.slice(start, end).trim();
    if (piece) out.push(piece);
    start = end;
  }
  return out;
}

/** Ingests one corpus into a fresh database and ranks its questions with Lore's search and with the baseline. */
export async function evaluateCorpus(
  corpus: EvalCorpus,
  dataDir: string,
  embedder: Embedder | null = null,
): Promise<CorpusResult> {
  const log = createLogger({ name: 'eval', level: 'silent' });
  const config = loadConfig({ LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'silent' });
  const db = await openDatabase({
    ...databaseFor(config, 'docs'),
    schema: tables,
    migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
  });
  try {
    const store = new DocsStore(db);
    const search = new DocsSearch(store, embedder);
    const vectors = new ChunkVectors(store, embedder, search);
    const summary = await ingestInputs({ store, log, vectors }, [corpus.root], {
      source: corpus.name,
      baseUri: corpus.baseUri,
    });
    const t0 = performance.now();
    await vectors.settled();
    const embedSeconds = (performance.now() - t0) / 1000;
    const baseline = await buildBaseline(store);
    const expected = corpus.questions.map((q) => q.pages.map((p) => corpus.prefix + p));
    const lore: string[][] = [];
    const base: string[][] = [];
    const loreMs: number[] = [];
    const baseMs: number[] = [];
    const wordsOnly = new DocsSearch(store, null);
    const meaningOnly = new DocsSearch(store, embedder);
    meaningOnly.meaningOnly = true;
    const words: string[][] = [];
    const meaning: string[][] = [];
    for (const q of corpus.questions) {
      let t = performance.now();
      const page = await search.search({ query: q.question, filter: null, offset: 0, limit: CHUNKS });
      loreMs.push(performance.now() - t);
      lore.push(distinct(page.hits.map((h) => h.document)));
      t = performance.now();
      base.push(await baseline(q.question));
      baseMs.push(performance.now() - t);
      if (embedder) {
        const req = { query: q.question, filter: null, offset: 0, limit: CHUNKS };
        words.push(distinct((await wordsOnly.search(req)).hits.map((h) => h.document)));
        meaning.push(distinct((await meaningOnly.search(req)).hits.map((h) => h.document)));
      }
    }
    const short = (d: string) => d.slice(corpus.prefix.length) || '(index)';
    const misses = corpus.questions.flatMap((q, i): Miss[] => {
      const rank = lore[i]!.findIndex((d) => expected[i]!.includes(d));
      if (rank === 0) return [];
      return [
        {
          question: q.question,
          expected: q.pages,
          rank: rank + 1,
          above: lore[i]!.slice(0, rank < 0 ? 5 : rank).map(short),
        },
      ];
    });
    const halves = (ranked: string[][]): Record<Half, Metrics> => {
      const half = (h: Half) => {
        const keep = (_: unknown, i: number) => halfOf(i) === h;
        return score(ranked.filter(keep), expected.filter(keep));
      };
      return { tune: half('tune'), 'held-out': half('held-out') };
    };
    return {
      corpus: corpus.name,
      documents: summary.added,
      chunks: summary.chunks,
      lore: score(lore, expected),
      baseline: score(base, expected),
      ...(embedder ? { words: score(words, expected), meaning: score(meaning, expected), embedSeconds } : {}),
      halves: {
        lore: halves(lore),
        baseline: halves(base),
        ...(embedder ? { words: halves(words), meaning: halves(meaning) } : {}),
      },
      misses,
      msPerSearch: { lore: median(loreMs), baseline: median(baseMs) },
      p99PerSearch: { lore: quantile(loreMs, 0.99), baseline: quantile(baseMs, 0.99) },
    };
  } finally {
    db.$client.close();
  }
}

/** Every corpus present, plus all questions pooled. */
export async function evaluateRetrieval(opts: { embedder?: Embedder | null } = {}): Promise<{
  corpora: CorpusResult[];
  all: {
    lore: Metrics;
    baseline: Metrics;
    words?: Metrics;
    meaning?: Metrics;
    halves: Halves;
  };
}> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-eval-'));
  try {
    const corpora: CorpusResult[] = [];
    for (const [i, c] of evalCorpora().entries())
      corpora.push(await evaluateCorpus(c, join(dir, String(i)), opts.embedder ?? null));
    const pool = (pick: (r: CorpusResult) => Metrics): Metrics => {
      const n = corpora.reduce((s, r) => s + pick(r).questions, 0);
      const w = (f: (m: Metrics) => number) =>
        corpora.reduce((s, r) => s + f(pick(r)) * pick(r).questions, 0) / Math.max(1, n);
      return {
        questions: n,
        recall1: w((m) => m.recall1),
        recall5: w((m) => m.recall5),
        mrr: w((m) => m.mrr),
      };
    };
    const poolHalves = (pick: (r: CorpusResult) => Record<Half, Metrics>): Record<Half, Metrics> => ({
      tune: pool((r) => pick(r).tune),
      'held-out': pool((r) => pick(r)['held-out']),
    });
    return {
      corpora,
      all: {
        lore: pool((r) => r.lore),
        baseline: pool((r) => r.baseline),
        ...(opts.embedder ? { words: pool((r) => r.words!), meaning: pool((r) => r.meaning!) } : {}),
        halves: {
          lore: poolHalves((r) => r.halves.lore),
          baseline: poolHalves((r) => r.halves.baseline),
          ...(opts.embedder
            ? { words: poolHalves((r) => r.halves.words!), meaning: poolHalves((r) => r.halves.meaning!) }
            : {}),
        },
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The results as a Markdown table (the same one the READMEs and BENCHMARKS.md quote). */
export function formatTable(result: Awaited<ReturnType<typeof evaluateRetrieval>>): string {
  const f = (x: number) => x.toFixed(3);
  const rows = ['| corpus | questions | ranking | recall@1 | recall@5 | MRR |', '|---|---|---|---|---|---|'];
  const add = (name: string, lore: Metrics, baseline: Metrics, words?: Metrics, meaning?: Metrics) => {
    rows.push(
      `| ${name} | ${lore.questions} | Lore${words ? ', words + meaning' : ''} | ${f(lore.recall1)} | ${f(lore.recall5)} | ${f(lore.mrr)} |`,
    );
    if (words)
      rows.push(
        `| ${name} | ${words.questions} | Lore, words only | ${f(words.recall1)} | ${f(words.recall5)} | ${f(words.mrr)} |`,
      );
    if (meaning)
      rows.push(
        `| ${name} | ${meaning.questions} | meaning only | ${f(meaning.recall1)} | ${f(meaning.recall5)} | ${f(meaning.mrr)} |`,
      );
    rows.push(
      `| ${name} | ${baseline.questions} | plain BM25, ${BASELINE_CHUNK}-char chunks | ${f(baseline.recall1)} | ${f(baseline.recall5)} | ${f(baseline.mrr)} |`,
    );
  };
  for (const c of result.corpora)
    add(`${c.corpus} (${c.documents} pages, ${c.chunks} chunks)`, c.lore, c.baseline, c.words, c.meaning);
  add('all', result.all.lore, result.all.baseline, result.all.words, result.all.meaning);
  const halves = result.all.halves;
  for (const h of ['tune', 'held-out'] as const)
    add(`all, ${h} half`, halves.lore[h], halves.baseline[h], halves.words?.[h], halves.meaning?.[h]);
  return rows.join('\n');
}
