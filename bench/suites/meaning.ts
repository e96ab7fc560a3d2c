import { loadavg } from 'node:os';
import { LOCAL_MODEL, LocalEmbedder } from '@lore/embed';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { openDatabase } from '@lore/kit/db';
import { tempDir } from '@lore/kit/testing';
import { KnowledgeBase } from '@lore/knowledge';
import { Corpus } from '../corpus.js';

/**
 * What reading meaning costs. The local embedder (all-MiniLM-L6-v2 on ONNX Runtime, in its
 * thread): load, query embedding p50/p99, background passages per second, RSS before, loaded and
 * after the idle unload. Knowledge search with the question's embedding included, at `chunks`
 * chunks of one agent (over `DB_SCAN_MAX`: its vectors compared in the process) and at `dbChunks`
 * (2,000, `DB_SCAN_MAX`) of another (compared by the database, `vector_distance_cos`), each beside
 * the same search without an embedder (words only) in the same run: the ratio is the figure that
 * carries across a busy machine. Stored vectors are random unit vectors written straight into the
 * `F32_BLOB(384)` column (a search's cost does not depend on what they mean; embedding 100k
 * chunks would take an hour). Figures are keyed by name; `say` prints each as it comes.
 */
export async function meaningFigures(opts: {
  chunks: number;
  dbChunks: number;
  queries: number;
  say?: (line: string) => void;
}): Promise<Record<string, number | string>> {
  const { chunks, dbChunks, queries } = opts;
  const say = opts.say ?? (() => {});
  const log = createLogger({ name: 'bench', level: 'silent' });
  const figures: Record<string, number | string> = {};
  const rss = () => process.memoryUsage().rss / 2 ** 20;
  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  };
  const record = (name: string, value: number, unit: string) => {
    figures[name] = Math.round(value * 100) / 100;
    say(`${name}: ${value.toFixed(2)} ${unit}`);
  };
  figures.loadAverageStart = loadavg()[0]!.toFixed(1);

  const corpus = new Corpus(42);
  const dir = tempDir();
  const embedder = new LocalEmbedder({ idleMs: 2_000 });
  try {
    // ---- the embedder alone
    global.gc?.();
    record('rss before the model, MB', rss(), 'MB');
    let t = performance.now();
    await embedder.embed(['warm up']);
    record('load (first request), ms', performance.now() - t, 'ms');
    record('rss with the model loaded, MB', rss(), 'MB');
    const times: number[] = [];
    for (let i = 0; i < queries; i++) {
      const q = corpus.question(corpus.topic(i));
      t = performance.now();
      await embedder.embed([q]);
      times.push(performance.now() - t);
    }
    record('query embedding p50, ms', pct(times, 50), 'ms');
    record('query embedding p99, ms', pct(times, 99), 'ms');
    // ~200-token passages (about 900 characters of the corpus's prose).
    const passages = Array.from({ length: 48 }, (_, i) => corpus.paragraph(corpus.topic(i + 7), 900));
    t = performance.now();
    await embedder.embed(passages);
    record(
      'background embedding, passages of ~200 tokens per second',
      passages.length / ((performance.now() - t) / 1000),
      '/s',
    );
    await new Promise((r) => setTimeout(r, 2_500));
    global.gc?.();
    record('rss after the idle unload, MB', rss(), 'MB');
    figures.unloaded = embedder.state;

    // ---- search with the question's embedding, beside words only
    const db = await openDatabase({
      url: `file:${dir.path}/knowledge.db`,
      schema: {},
      migrationsFolder: new URL('../../packages/knowledge/migrations', import.meta.url).pathname,
    });
    const outbox = new Outbox(db, new MemoryBus(), { node: 'bench', service: 'knowledge' }, log);
    type Db = ConstructorParameters<typeof KnowledgeBase>[0];
    const words = new KnowledgeBase(db as unknown as Db, outbox, null, log);
    const meaning = new KnowledgeBase(db as unknown as Db, outbox, embedder, log);
    await meaning.vectorizer?.stop();
    // Classifying the passages for sensitivity would share the process with the searches timed
    // here (and the model thread with the question's embedding): the figure is the search's.
    await Promise.all([words.sensitivity.stop(), meaning.sensitivity.stop()]);
    const fill = async (agentId: string, count: number, sourceOffset: number) => {
      const agent = { id: agentId, handle: agentId, node: 'bench' };
      const sources = Math.ceil(count / 100);
      t = performance.now();
      for (let s = 0; s < sources; s++)
        await words.add(agent, {
          name: `source-${s}.md`,
          format: 'markdown',
          text: corpus.markdown(corpus.topic(s + sourceOffset), 100),
          pages: null,
        });
      say(`${agentId}: ${count} chunks written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      t = performance.now();
      const ids = await db.$client.execute({
        sql: 'select id from chunks where agent_id = ?',
        args: [agentId],
      });
      const unit = () => {
        const v = new Float32Array(384);
        let n = 0;
        for (let i = 0; i < 384; i++) {
          v[i] = Math.random() - 0.5;
          n += v[i]! * v[i]!;
        }
        for (let i = 0; i < 384; i++) v[i]! /= Math.sqrt(n);
        return Buffer.from(v.buffer);
      };
      for (let at = 0; at < ids.rows.length; at += 1000)
        await db.$client.batch(
          ids.rows.slice(at, at + 1000).map((row) => ({
            sql: 'update chunks set vector = ?, embedding_model = ? where id = ?',
            args: [unit(), LOCAL_MODEL, row.id as number],
          })),
          'write',
        );
      say(
        `${agentId}: ${ids.rows.length} vectors written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      return ids.rows.length;
    };
    const measure = async (label: string, agentId: string, sourceOffset: number) => {
      const w: number[] = [];
      const m: number[] = [];
      // Distinct questions, so none finds its vector cached; alternating, so both see the same load.
      for (let i = 0; i < queries + 20; i++) {
        const q = `${corpus.question(corpus.topic(sourceOffset + ((i * 7919) % 500)))} ${i}`;
        let s = performance.now();
        await words.search(agentId, q, { limit: 10 });
        const wt = performance.now() - s;
        s = performance.now();
        await meaning.search(agentId, q, { limit: 10 });
        const mt = performance.now() - s;
        if (i >= 20) {
          w.push(wt);
          m.push(mt);
        }
      }
      record(`${label}: search with meaning (query embedded) p50, ms`, pct(m, 50), 'ms');
      record(`${label}: search with meaning (query embedded) p99, ms`, pct(m, 99), 'ms');
      record(`${label}: words only p50, ms`, pct(w, 50), 'ms');
      record(`${label}: words only p99, ms`, pct(w, 99), 'ms');
      record(`${label}: p99 ratio meaning / words`, pct(m, 99) / pct(w, 99), '×');
    };
    const big = await fill('agent-big', chunks, 0);
    const small = await fill('agent-db', dbChunks, 1000);
    await measure(`${Math.round(big / 1000)}k chunks (vectors in the process)`, 'agent-big', 0);
    await measure(`${Math.round(small / 1000)}k chunks (vectors compared by the database)`, 'agent-db', 1000);
    figures.loadAverageEnd = loadavg()[0]!.toFixed(1);
    say(`load average: ${figures.loadAverageStart} at the start, ${figures.loadAverageEnd} at the end`);
    await meaning.close();
    db.$client.close();
    return figures;
  } finally {
    await embedder.close();
    dir.cleanup();
  }
}
