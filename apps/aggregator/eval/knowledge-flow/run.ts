/**
 * `pnpm eval:knowledge`: the knowledge flow, end to end. An owner uploads the notes of
 * `set.ts`; a peer asks every question of the owner by name over MCP (`cqAskQuestion`); the
 * owner's inbox (`cqListRequestedQueries`) says what was drafted and from which notes. Run twice
 * in one process: with the local model (words and meaning, the default) and with
 * `LORE_EMBEDDINGS=off` (BM25 and the words rule alone); beside them, semantic-only: the nearest
 * chunk by the database's `vector_distance_cos` over the same stored vectors, drafted when its
 * similarity reaches the model's calibrated threshold.
 *
 * Figures: the share of questions drafted from the right note (target ≥ 0.95) and the share of
 * off-topic questions drafted from any note (target ≤ 0.05). Exits 1 when the hybrid run misses
 * a target. `--json FILE` writes the figures.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LocalEmbedder } from '@lore/embed';
import { openDatabase } from '@lore/kit/db';
import { appFetch, type Client, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { MEANING_SCALES } from '@lore/knowledge';
import { nearestSql, vectorParam } from '@lore/search';
import { startAllInOne } from '../../src/index.js';
import { servicesNamed } from '../../src/services.js';
import { FLOW_NOTES, FLOW_OFF_TOPIC, FLOW_QUESTIONS } from './set.js';

const { values: args } = parseArgs({ options: { json: { type: 'string' } } });

interface Figures {
  /** Questions drafted citing the right note (among what they cite). */
  right: number;
  /** Questions drafted citing the right note and no other. */
  onlyRight: number;
  /** Off-topic questions drafted from any note. */
  offTopicDrafted: number;
  misses: string[];
  seconds: number;
}

type Requested = Record<
  string,
  { status: string; draft: { citations: Array<{ source: string }> } | null; question: string }
>;

const SETTLED = new Set([
  'pending',
  'accepted',
  'rejected',
  'no-knowledge',
  'held',
  'drafted',
  'undeliverable',
]);

/** Through the services: ask, then read the owner's inbox. `dbPath` is kept for semantic-only. */
async function flow(embeddings: 'local' | 'off', dataDir: string): Promise<Figures> {
  const started = performance.now();
  const lore = await startAllInOne(
    testConfig(dataDir, { LORE_RATE_LIMITS: 'false', LORE_EMBEDDINGS: embeddings }),
    {
      services: servicesNamed('users', 'knowledge', 'queries', 'approvals'),
    },
  );
  try {
    const anon = await connectClient(appFetch(lore.app));
    const join = async (username: string) => {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: username,
      });
      return connectClient(appFetch(lore.app), { key: r.data.apiKey });
    };
    const owner: Client = await join('owner');
    const peer: Client = await join('peer');
    for (const note of FLOW_NOTES)
      await ok(owner, 'updateKnowledgeSources', { file_name: note.name, file_content: note.text });
    if (embeddings === 'local') await vectorsDone(dataDir);

    const asked = new Map<string, { note: string | null; question: string }>();
    for (const q of [...FLOW_QUESTIONS, ...FLOW_OFF_TOPIC.map((question) => ({ question, note: null }))]) {
      const r = await ok<{ query_id: string }>(peer, 'cqAskQuestion', {
        question: q.question,
        peers: ['owner'],
      });
      asked.set(r.data.query_id, q);
    }
    let inbox: Requested = {};
    const deadline = Date.now() + 600_000;
    for (;;) {
      inbox = (await ok<Requested>(owner, 'cqListRequestedQueries')).data;
      const waiting = [...asked.keys()].filter((id) => !SETTLED.has(inbox[id]?.status ?? ''));
      if (!waiting.length) break;
      if (Date.now() > deadline) throw new Error(`${waiting.length} questions never settled in the inbox`);
      await new Promise((r) => setTimeout(r, 250));
    }
    let right = 0;
    let onlyRight = 0;
    let offTopic = 0;
    const misses: string[] = [];
    for (const [id, q] of asked) {
      const item = inbox[id];
      if (!item) throw new Error(`question ${id} is not in the owner's inbox`);
      const cited = [...new Set(item.draft?.citations.map((c) => c.source) ?? [])];
      if (q.note === null) {
        if (cited.length) {
          offTopic++;
          misses.push(`off-topic drafted: ${q.question} → ${cited.join(', ')}`);
        } else if (item.status !== 'no-knowledge')
          misses.push(`off-topic not in the inbox as nothing matched: ${q.question} (${item.status})`);
        continue;
      }
      if (cited.includes(q.note)) right++;
      else misses.push(`${q.question} → ${cited.join(', ') || 'no draft'} (wanted ${q.note})`);
      if (cited.length === 1 && cited[0] === q.note) onlyRight++;
    }
    return {
      right: right / FLOW_QUESTIONS.length,
      onlyRight: onlyRight / FLOW_QUESTIONS.length,
      offTopicDrafted: offTopic / FLOW_OFF_TOPIC.length,
      misses,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await lore.close();
  }
}

/** Waits until every chunk of the knowledge database has its vector. */
async function vectorsDone(dataDir: string) {
  const db = (await openDatabase({ url: `file:${dataDir}/knowledge.db`, schema: {} })).$client;
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const rs = await db.execute('select count(*) as n from chunks where embedding_model is null');
      if (Number(rs.rows[0]!.n) === 0) return;
      if (Date.now() > deadline) throw new Error('the notes were never embedded');
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    db.close();
  }
}

/** Semantic-only over the vectors the hybrid run stored: the nearest chunk, drafted at the threshold. */
async function semanticOnly(dataDir: string): Promise<Figures> {
  const started = performance.now();
  const embedder = new LocalEmbedder();
  const scale = MEANING_SCALES[embedder.model];
  if (!scale) throw new Error(`no calibrated scale for ${embedder.model}`);
  const db = (await openDatabase({ url: `file:${dataDir}/knowledge.db`, schema: {} })).$client;
  const sql = `${nearestSql({ table: 'chunks', column: 'vector', id: 'id', where: 'embedding_model = ?', k: 1 })}`;
  const nearest = async (question: string) => {
    const [v] = await embedder.embed([question]);
    const rs = await db.execute({
      sql: `select s.name as source, n.similarity from (${sql}) n join chunks c on c.id = n.id join sources s on s.id = c.source_id`,
      args: [vectorParam(v!), embedder.model],
    });
    const row = rs.rows[0];
    return row && Number(row.similarity) >= scale.threshold ? String(row.source) : null;
  };
  try {
    let right = 0;
    let offTopic = 0;
    const misses: string[] = [];
    for (const q of FLOW_QUESTIONS) {
      const source = await nearest(q.question);
      if (source === q.note) right++;
      else misses.push(`${q.question} → ${source ?? 'nothing'} (wanted ${q.note})`);
    }
    for (const q of FLOW_OFF_TOPIC) {
      const source = await nearest(q);
      if (source) {
        offTopic++;
        misses.push(`off-topic: ${q} → ${source}`);
      }
    }
    return {
      right: right / FLOW_QUESTIONS.length,
      onlyRight: right / FLOW_QUESTIONS.length,
      offTopicDrafted: offTopic / FLOW_OFF_TOPIC.length,
      misses,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    db.close();
    await embedder.close();
  }
}

const hybridDir = tempDir();
const lexicalDir = tempDir();
try {
  process.stdout.write(
    `knowledge flow: ${FLOW_NOTES.length} notes, ${FLOW_QUESTIONS.length} questions, ${FLOW_OFF_TOPIC.length} off-topic\n`,
  );
  const hybrid = await flow('local', hybridDir.path);
  const semantic = await semanticOnly(hybridDir.path);
  const lexical = await flow('off', lexicalDir.path);
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const rows: Array<[string, Figures]> = [
    ['words + meaning (hybrid, the services)', hybrid],
    ['semantic only (nearest chunk ≥ threshold)', semantic],
    ['BM25 + words rule (LORE_EMBEDDINGS=off, the services)', lexical],
  ];
  process.stdout.write(
    '\n| run | drafted from the right note | only from it | off-topic drafted | s |\n|---|---|---|---|---|\n',
  );
  for (const [name, f] of rows)
    process.stdout.write(
      `| ${name} | ${pct(f.right)} | ${pct(f.onlyRight)} | ${pct(f.offTopicDrafted)} | ${f.seconds.toFixed(0)} |\n`,
    );
  process.stdout.write(`\nhybrid misses:\n${hybrid.misses.map((m) => `  ${m}`).join('\n') || '  none'}\n`);
  if (args.json)
    writeFileSync(
      args.json,
      `${JSON.stringify({ at: new Date().toISOString(), hybrid, semantic, lexical }, null, 2)}\n`,
    );
  const met = hybrid.right >= 0.95 && hybrid.offTopicDrafted <= 0.05;
  process.stdout.write(
    `\ntargets (right ≥ 95 %, off-topic ≤ 5 %): ${met ? 'met' : 'MISSED'} by the hybrid run\n`,
  );
  process.exitCode = met ? 0 : 1;
} finally {
  hybridDir.cleanup();
  lexicalDir.cleanup();
}
