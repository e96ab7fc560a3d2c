import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown } from './html.js';
import { ParseLimitError } from './limits.js';
import { extractPdfText } from './pdf.js';

/** One document to parse, as the pool sends it. */
export type ParseTask =
  | { id: number; kind: 'pdf'; bytes: Uint8Array; maxPages: number }
  | { id: number; kind: 'html'; html: string; maxNesting: number };

export type ParseReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; limit?: string; message: string };

// On Linux this lowers the priority of this thread only (setpriority acts per thread there): when
// the cores are busy, the process's main thread — every other call — wins over a long parse.
try {
  setPriority(19);
} catch {
  // Not permitted or not supported: the parse runs at normal priority.
}

async function run(task: ParseTask): Promise<unknown> {
  if (task.kind === 'pdf') return extractPdfText(task.bytes, task.maxPages);
  return htmlToMarkdown(task.html, task.maxNesting);
}

// Modules are loaded: the pool starts a document's clock only from here.
parentPort?.postMessage({ ready: true });

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
