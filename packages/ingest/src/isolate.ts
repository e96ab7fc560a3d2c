import { z } from 'zod';
import { DEFAULT_PARSE_LIMITS, ParseLimitError } from './limits.js';
import { ParserPool } from './pool.js';

export { NORMAL_PRIORITY_CPU_MS, PARSER_IDLE_MS, ParserPool, threadCpuMs } from './pool.js';

/**
 * The URL of a task module beside the caller, for `runIsolated`: `source` (relative to the
 * caller's source file) when running from TypeScript sources, `built` (relative to the built
 * chunk in dist/, where the package's tsdown config emits it as an entry) otherwise.
 */
export function taskModule(callerUrl: string, paths: { source: string; built: string }): string {
  return new URL(callerUrl.endsWith('.ts') ? paths.source : paths.built, callerUrl).href;
}

let shared: ParserPool | undefined;

/** The process's parser threads, started on first use. */
export function parserPool(): ParserPool {
  shared ??= new ParserPool();
  return shared;
}

/**
 * The parse time limit of the process's parser pool (`LORE_INGEST_TIME_LIMIT_MS`): set by the
 * services that parse when they are created, before their first document. A different limit
 * replaces the pool (its idle parsers end on their own).
 */
export function useParseTimeLimit(timeMs: number): void {
  if (shared?.limits.timeMs === timeMs) return;
  const old = shared;
  shared = new ParserPool({ ...DEFAULT_PARSE_LIMITS, timeMs });
  void old?.close();
}

/** What the services that parse documents read: the time limit of one document. */
export const IngestSettings = {
  LORE_INGEST_TIME_LIMIT_MS: z.coerce
    .number()
    .int()
    .min(100, { error: 'at least 100 (milliseconds)' })
    .max(600_000, { error: 'at most 600000 (milliseconds)' })
    .default(DEFAULT_PARSE_LIMITS.timeMs),
};

/**
 * `extractPdfText` in a parser, under the pool's limits (time, memory, pages, inflated bytes,
 * text, objects). The input is copied first, so the caller's buffer stays usable.
 */
export async function pdfToText(
  bytes: Uint8Array,
  pool: ParserPool = parserPool(),
): Promise<{ text: string; pages: number }> {
  const copy = new Uint8Array(bytes);
  try {
    return (await pool.run({ kind: 'pdf', bytes: copy, limits: pool.limits }, [
      copy.buffer as ArrayBuffer,
    ])) as { text: string; pages: number };
  } catch (err) {
    if (err instanceof ParseLimitError) throw err;
    throw new Error(`pdfToText: not a readable PDF (${(err as Error).message})`, { cause: err });
  }
}

/** `htmlToMarkdown` in a parser, under the pool's limits (time, memory, nesting, size). */
export async function convertHtml(
  html: string,
  pool: ParserPool = parserPool(),
): Promise<{ title: string | null; markdown: string }> {
  return (await pool.run({
    kind: 'html',
    html,
    maxNesting: pool.limits.maxNesting,
    maxDocumentChars: pool.limits.maxDocumentChars,
  })) as {
    title: string | null;
    markdown: string;
  };
}

/**
 * Calls export `name` of `module` (see `taskModule`) with `args` in a parser thread, under the
 * pool's time and memory limits: a package's own parsing step (Markdown splitting, front
 * matter), so a hostile document costs its caller a `ParseLimitError` and the event loop
 * nothing. Arguments and result cross by structured clone.
 */
export async function runIsolated<T>(
  module: string,
  name: string,
  args: unknown[],
  pool: ParserPool = parserPool(),
): Promise<T> {
  return (await pool.run({ kind: 'module', module, name, args })) as T;
}

/**
 * `runIsolated` for a step that hands its result over in parts: export `name` is called with
 * `args` and one more argument, a function that sends a part (structured clone) to `onPart`
 * here as soon as the event loop takes it, while the thread goes on. The returned promise
 * settles after the last part; a limit or an error rejects it as with `runIsolated`, and no
 * part follows.
 */
export async function streamIsolated<P, T>(
  module: string,
  name: string,
  args: unknown[],
  onPart: (part: P) => void,
  pool: ParserPool = parserPool(),
): Promise<T> {
  return (await pool.run({ kind: 'module', module, name, args, parts: true }, [], (value) =>
    onPart(value as P),
  )) as T;
}
