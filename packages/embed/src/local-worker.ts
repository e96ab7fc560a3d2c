import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';

/** What the model thread is started with. */
export interface ModelThreadData {
  /** The weights package to import (its default export is a `@lat.md/embed` model manifest). */
  modelModule: string;
  /** The weights' expected sha256; other weights are refused. */
  sha256: string;
}

export type ModelThreadRequest = { id: number; texts: string[] };
export type ModelThreadReply =
  | { ready: true; loadMs: number }
  | { failed: string }
  | { id: number; vectors: Float32Array[] }
  | { id: number; error: string };

/**
 * `@lat.md/embed` runs texts of fewer than 24 inline, one forward pass each; at 24 and more it
 * starts threads of its own. This thread is the one that runs the model, so it hands over less.
 */
const INLINE = 16;

const port = parentPort!;
const data = workerData as ModelThreadData;

async function load() {
  const started = performance.now();
  const [{ createEmbedder }, manifest] = await Promise.all([
    import('@lat.md/embed'),
    import(data.modelModule).then((m: { default: import('@lat.md/embed').ModelManifest }) => m.default),
  ]);
  const digest = createHash('sha256')
    .update(await readFile(manifest.weightsPath))
    .digest('hex');
  if (digest !== data.sha256)
    throw new Error(`the weights in ${manifest.weightsPath} have sha256 ${digest}, expected ${data.sha256}`);
  const embedder = await createEmbedder({ model: manifest });
  // The engine is built on first use: build it now, so that loading is over when ready is said.
  await embedder.embed(['ready']);
  return { embedder, loadMs: performance.now() - started };
}

try {
  const { embedder, loadMs } = await load();
  port.on('message', async ({ id, texts }: ModelThreadRequest) => {
    try {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += INLINE)
        for (const v of await embedder.embed(texts.slice(i, i + INLINE))) vectors.push(Float32Array.from(v));
      port.postMessage(
        { id, vectors } satisfies ModelThreadReply,
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (err) {
      port.postMessage({ id, error: (err as Error).message } satisfies ModelThreadReply);
    }
  });
  port.postMessage({ ready: true, loadMs } satisfies ModelThreadReply);
} catch (err) {
  port.postMessage({ failed: (err as Error).message } satisfies ModelThreadReply);
}
