import { readFileSync } from 'node:fs';
import { parentPort as threadPort } from 'node:worker_threads';
import { htmlToMarkdown } from './html.js';
import { ParseLimitError } from './limits.js';
import { extractPdfText, loadPdfjs, loadUnpdf, type PdfTextLimits } from './pdf.js';
import { threadCpuMs } from './thread-cpu.js';

/** One document to parse, as the pool sends it. */
export type ParseTask =
  | { id: number; kind: 'pdf'; bytes: Uint8Array; limits: PdfTextLimits }
  | { id: number; kind: 'html'; html: string; maxNesting: number; maxDocumentChars: number }
  /**
   * A named export of a module (a file URL) called with `args`: a package's own parsing step.
   * With `parts`, the export gets one more argument, a function that sends a part of its result
   * ahead of the rest (the pool hands each to the caller as it comes, in order).
   */
  | { id: number; kind: 'module'; module: string; name: string; args: unknown[]; parts?: boolean };

/**
 * What a thread says besides replies: it is ready (with its Linux thread id), or it has loaded
 * what a document needs and starts on it (with its own CPU time then, in milliseconds).
 */
export type WorkerNotice = { ready: true; tid?: number } | { started: number; cpuMs?: number };

export type ParseReply =
  | { part: number; value: unknown }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; limit?: string; message: string };

/**
 * The pool, whether this runs as a worker thread (its parent port) or as a parser process (its
 * IPC channel, structured clone on both ends).
 */
const parentPort:
  | { postMessage(value: unknown): void; on(event: 'message', fn: (task: ParseTask) => void): void }
  | undefined =
  threadPort ??
  (process.send
    ? {
        postMessage: (value) => process.send?.(value),
        on: (event, fn) => process.on(event, fn as (task: unknown) => void),
      }
    : undefined);

// A parser process ends with its pool's process: it has no other reason to live.
if (!threadPort && process.send) process.on('disconnect', () => process.exit(0));

// The parser starts at its pool's priority: the pool lowers it once a document has used
// `NORMAL_PRIORITY_CPU_MS` of CPU (pool.ts), so a short document is not slowed on a busy machine
// and a long one does not hold a core the services need.

async function run(task: ParseTask): Promise<unknown> {
  if (task.kind === 'pdf') {
    // pdf.js loads on a thread's first PDF (seconds on a busy machine): the clock starts after.
    // unpdf's index is small; pdf.js itself (1.4 MB of module) is evaluated by `loadPdfjs`.
    await loadUnpdf();
    await loadPdfjs();
    parentPort?.postMessage({ started: task.id, cpuMs: ownCpuMs() });
    return extractPdfText(task.bytes, task.limits);
  }
  if (task.kind === 'html') return htmlToMarkdown(task.html, task.maxNesting, task.maxDocumentChars);
  const mod = (await import(task.module)) as Record<string, unknown>;
  // Loaded (the first time, from sources, that can take seconds): the document's clock starts
  // now, from this thread's CPU time read here rather than by the pool on the event loop.
  parentPort?.postMessage({ started: task.id, cpuMs: ownCpuMs() });
  const fn = mod[task.name];
  if (typeof fn !== 'function') throw new Error(`${task.module} exports no function ${task.name}`);
  if (!task.parts) return fn(...task.args);
  const send = (value: unknown) => parentPort?.postMessage({ part: task.id, value } satisfies ParseReply);
  return fn(...task.args, send);
}

/** This thread's CPU time in milliseconds (Linux), as `threadCpuMs` reads it; undefined elsewhere. */
function ownCpuMs(): number | undefined {
  return tid === undefined ? undefined : threadCpuMs(tid);
}

/** This thread's Linux thread id, so the pool can read the thread's CPU time; undefined elsewhere. */
function threadId(): number | undefined {
  try {
    const tid = Number.parseInt(readFileSync('/proc/thread-self/stat', 'utf8'), 10);
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

const tid = threadId();

// Modules are loaded: the pool starts a document's clock only from here.
parentPort?.postMessage({ ready: true, tid });

parentPort?.on('message', (task: ParseTask) => {
  run(task).then(
    (value) => parentPort?.postMessage({ id: task.id, ok: true, value } satisfies ParseReply),
    (err: unknown) => {
      const reply: ParseReply =
        err instanceof ParseLimitError
          ? { id: task.id, ok: false, limit: err.limit, message: err.message }
          : err instanceof RangeError && /call stack/i.test(err.message)
            ? { id: task.id, ok: false, limit: 'nesting', message: 'the document nests too deeply to parse' }
            : { id: task.id, ok: false, message: err instanceof Error ? err.message : String(err) };
      parentPort?.postMessage(reply);
    },
  );
});
