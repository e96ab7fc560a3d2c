import type { Embedder } from '@lore/embed';
import type { Database } from '@lore/kit/db';
import { cosine } from '@lore/search';
import { sql } from 'drizzle-orm';
import type * as tables from '../tables.js';

/**
 * What a source is about, by meaning: the broad subjects conditions name ("questions related to
 * programming", "scientific topics", "anything about health", "money"), decided from the mean
 * vector of the source's first passages against prototype sentences of each subject — not from
 * a word it happens to contain ("API code reviewer" on a contacts page does not make it about
 * programming). Null without an embedding model: the gate then reads names and keywords.
 */
export const SUBJECT_PROTOTYPES: Record<string, string[]> = {
  programming: [
    'Software development: writing, testing and debugging code in a programming language.',
    'Setting up a developer environment with git, package managers, build tools, databases and containers.',
    'Configuration files, environment variables and deployment of web services and their APIs.',
    'Programming language features such as types, functions, classes, generics and lists.',
  ],
  science: [
    'Physics, chemistry and biology: scientific theories, experiments and laws of nature.',
    'Quantum mechanics, relativity, thermodynamics and the physics of stars and black holes.',
  ],
  medicine: [
    'Health and medicine: illnesses, diagnoses, treatments, medication and doctors.',
    'A person’s medical condition, injuries, pregnancy or hospital appointments.',
  ],
  finance: [
    'Money and finance: salaries, pay, budgets, bank accounts, taxes and investments.',
    'How much people earn, their bonuses and payroll figures.',
  ],
};

/**
 * A source is about a subject when its mean passage vector scores at least this against one of
 * the subject's prototypes. On the adversarial suite's sources (all-MiniLM-L6-v2): programming
 * notes 0.27–0.49, a contacts page with an "API code reviewer" 0.04, a facilities page 0.18;
 * physics 0.50 for science, the next 0.16; payroll 0.42 for finance, the next 0.13.
 */
export const SUBJECT_THRESHOLD = 0.24;
/** Passages of a source that say what it is about. */
export const SUBJECT_PASSAGES = 12;

export class SourceSubjects {
  private prototypes: Promise<Map<string, Float32Array[]>> | undefined;
  /** By source id and update time: a replaced source is judged again. */
  private readonly cache = new Map<string, string[]>();

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly embedder: Embedder | null,
  ) {}

  private load() {
    this.prototypes ??= (async () => {
      const names = Object.keys(SUBJECT_PROTOTYPES);
      const all = await this.embedder!.embed(names.flatMap((n) => SUBJECT_PROTOTYPES[n]!));
      const out = new Map<string, Float32Array[]>();
      let at = 0;
      for (const n of names) {
        out.set(n, all.slice(at, at + SUBJECT_PROTOTYPES[n]!.length));
        at += SUBJECT_PROTOTYPES[n]!.length;
      }
      return out;
    })().catch((err) => {
      this.prototypes = undefined;
      throw err;
    });
    return this.prototypes;
  }

  /** Each named source's subjects (absent names are left out); null without a model. */
  async of(agentId: string, names: string[]): Promise<Map<string, string[]> | null> {
    if (!this.embedder || !names.length) return null;
    const rows = await this.db.all<{ id: string; name: string; updated: number }>(sql`
      select id, name, updated_at as updated from sources
      where agent_id = ${agentId} and name in (${sql.join(
        names.map((n) => sql`${n}`),
        sql`, `,
      )})`);
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const key = `${r.id}@${r.updated}`;
      let subjects = this.cache.get(key);
      if (!subjects) {
        subjects = await this.judge(r.id, r.name);
        if (this.cache.size > 2000) this.cache.clear();
        this.cache.set(key, subjects);
      }
      out.set(r.name, subjects);
    }
    return out;
  }

  /** The subjects of one source's text: exported for the calibration test. */
  async subjectsOfTexts(texts: string[]): Promise<Array<[string, number]>> {
    const protos = await this.load();
    const vectors = await this.embedder!.embed(texts);
    const dim = vectors[0]?.length ?? 0;
    const mean = new Float32Array(dim);
    for (const v of vectors) for (let i = 0; i < dim; i++) mean[i]! += v[i]! / vectors.length;
    return [...protos].map(([n, ps]) => [n, Math.max(...ps.map((p) => cosine(mean, p)))] as [string, number]);
  }

  private async judge(sourceId: string, name: string): Promise<string[]> {
    const chunks = await this.db.all<{ text: string }>(sql`
      select text from chunks where source_id = ${sourceId} order by position limit ${SUBJECT_PASSAGES}`);
    if (!chunks.length) return [];
    const title = name.replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[-_.]+/g, ' ');
    const scores = await this.subjectsOfTexts(chunks.map((c) => `${title}\n${c.text}`));
    return scores.filter(([, s]) => s >= SUBJECT_THRESHOLD).map(([n]) => n);
  }
}
