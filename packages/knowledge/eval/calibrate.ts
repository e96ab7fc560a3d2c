/**
 * `pnpm calibrate:knowledge`: the calibration of relevance by meaning, reproducible. Ingests the
 * calibration set (test/fixtures/relevance-eval.ts) with the local model, asks every question once
 * through the knowledge search, then judges the same candidates (similarity and lexical coverage
 * of every passage) under each cell of a grid — lexical weight × threshold × least similarity —
 * with the search's own `judgeCandidates`, and prints, per cell, the share of questions drafted
 * first from the right note and the share of off-topic questions with any relevant passage.
 * Never tune on apps/aggregator/eval/knowledge-flow: that set only confirms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalEmbedder } from '@lore/embed';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { openDatabase } from '@lore/kit/db';
import type { VerifiedAgent } from '@lore/schema';
import { KnowledgeBase } from '../src/domain/knowledge-base.js';
import type { FoundPassage } from '../src/domain/knowledge-types.js';
import { judgeCandidates, MEANING_SCALES, type MeaningScale } from '../src/domain/relevance.js';
import * as tables from '../src/tables.js';
import {
  EVAL_NOTES,
  EVAL_QUESTIONS,
  NEAR_MISSES,
  OFF_TOPIC as UNRELATED,
} from '../test/fixtures/relevance-eval.js';

/** Every question no note answers: the unrelated ones and the near misses. */
const OFF_TOPIC = [...UNRELATED, ...NEAR_MISSES];

const WEIGHTS = [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4];
const THRESHOLDS = [0.3, 0.32, 0.33, 0.34, 0.35, 0.36, 0.38, 0.4, 0.42, 0.43, 0.44];
const MIN_SIMILARITIES = [0.25, 0.28, 0.3, 0.32];

const owner: VerifiedAgent = { id: 'agent-owner', handle: 'owner', node: 'n1' };
const log = createLogger({ name: 'calibrate', level: 'silent' });

interface Cell {
  right: number;
  onlyRight: number;
  offTopic: number;
  misses: string[];
}

/** The sources of the relevant passages, strongest evidence first, as drafting reads them. */
function relevantSources(passages: FoundPassage[], scale: MeaningScale): string[] {
  const judged = judgeCandidates(
    passages.map((p) => ({
      lexical: { score: p.score, matched: [], coverage: p.coverage, relevant: false },
      ...(p.similarity !== undefined ? { similarity: p.similarity } : {}),
    })),
    scale,
  );
  return passages
    .map((p, i) => ({ source: p.source, ...judged[i]! }))
    .filter((j) => j.relevant)
    .sort((a, b) => (b.evidence ?? 0) - (a.evidence ?? 0))
    .map((j) => j.source);
}

function measure(asked: Map<string, FoundPassage[]>, scale: MeaningScale): Cell {
  let right = 0;
  let onlyRight = 0;
  let offTopic = 0;
  const misses: string[] = [];
  for (const q of EVAL_QUESTIONS) {
    const sources = relevantSources(asked.get(q.question)!, scale);
    if (sources[0] === q.note) right++;
    else misses.push(`${q.question} → ${sources[0] ?? 'nothing'} (wanted ${q.note})`);
    if (sources.length && sources.every((s) => s === q.note)) onlyRight++;
  }
  for (const q of OFF_TOPIC) {
    const sources = relevantSources(asked.get(q)!, scale);
    if (sources.length) {
      offTopic++;
      misses.push(`off-topic: ${q} → ${sources[0]}`);
    }
  }
  return {
    right: right / EVAL_QUESTIONS.length,
    onlyRight: onlyRight / EVAL_QUESTIONS.length,
    offTopic: offTopic / OFF_TOPIC.length,
    misses,
  };
}

const pct = (x: number) => (x * 100).toFixed(1).padStart(5);

const dir = mkdtempSync(join(tmpdir(), 'lore-calibrate-'));
const embedder = new LocalEmbedder();
const db = await openDatabase({
  url: `file:${join(dir, 'knowledge.db')}`,
  schema: tables,
  migrationsFolder: fileURLToPath(new URL('../migrations', import.meta.url)),
});
const kb = new KnowledgeBase(
  db,
  new Outbox(db, new MemoryBus(), { node: 'n1', service: 'knowledge' }, log),
  embedder,
  log,
);
try {
  for (const note of EVAL_NOTES)
    await kb.add(owner, { name: note.name, format: 'markdown', text: note.text, pages: null });
  await kb.vectorizer?.settled();
  // Every passage of every question, once: the grid judges these candidates again and again.
  const asked = new Map<string, FoundPassage[]>();
  for (const question of [...EVAL_QUESTIONS.map((q) => q.question), ...OFF_TOPIC])
    asked.set(question, (await kb.search(owner.id, question, { limit: 50 })).passages);

  const chosen = MEANING_SCALES[embedder.model];
  if (!chosen) throw new Error(`no calibrated scale for ${embedder.model}`);
  const out: string[] = [
    `relevance calibration (${embedder.model}): ${EVAL_NOTES.length} notes, ${EVAL_QUESTIONS.length} questions, ${OFF_TOPIC.length} off-topic; margin ${chosen.margin}`,
    'each cell: drafted first from the right note % / off-topic questions matched %',
  ];
  for (const minSimilarity of MIN_SIMILARITIES) {
    out.push(
      '',
      `least similarity ${minSimilarity}`,
      `weight \\ threshold ${THRESHOLDS.map((t) => t.toFixed(2).padStart(11)).join('')}`,
    );
    for (const lexicalWeight of WEIGHTS) {
      const cells = THRESHOLDS.map((threshold) => {
        const c = measure(asked, { ...chosen, threshold, lexicalWeight, minSimilarity });
        const mark =
          threshold === chosen.threshold &&
          lexicalWeight === chosen.lexicalWeight &&
          minSimilarity === chosen.minSimilarity
            ? '*'
            : ' ';
        return `${pct(c.right)}/${pct(c.offTopic)}${mark}`;
      });
      out.push(`${String(lexicalWeight).padEnd(18)} ${cells.join('')}`);
    }
  }
  const c = measure(asked, chosen);
  out.push(
    '',
    `chosen (*): threshold ${chosen.threshold}, lexical weight ${chosen.lexicalWeight}, least similarity ${chosen.minSimilarity}: right note ${pct(c.right).trim()} %, only the right note ${pct(c.onlyRight).trim()} %, off-topic matched ${pct(c.offTopic).trim()} %`,
    ...c.misses.map((m) => `  ${m}`),
  );
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  await kb.close();
  db.$client.close();
  await embedder.close();
  rmSync(dir, { recursive: true, force: true });
}
