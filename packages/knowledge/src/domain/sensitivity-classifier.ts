import { type Embedder, EmbedderUnavailableError } from '@lore/embed';
import { BackgroundWork, type Logger } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import type { SensitivityCategory, SourceSensitivity } from '@lore/schema/knowledge';
import type { PassageFacts } from '@lore/schema/knowledge-events';
import { sql } from 'drizzle-orm';
import type * as tables from '../tables.js';
import { announceClassified } from './public-keywords.js';
import { CATEGORIES, classifyByRules, SemanticSensitivity, sensitivityVersion } from './sensitivity.js';

/** Passages classified per step (the model embeds each one's sentences). */
export const SENSITIVITY_BATCH = 8;
/** After a failed step (an endpoint down), the next try. */
export const SENSITIVITY_RETRY_MS = 60_000;
/**
 * How long after an upload the classification starts: uploads in a row (a client adding a
 * folder) are not slowed by the rules working between them (they cost more CPU than the writes
 * of a passage); it starts once they pause. Its passages are held for their owner meanwhile,
 * as every passage without a verdict is.
 */
export const SENSITIVITY_QUIET_MS = 250;

/**
 * Keeps every chunk's sensitivity current: each chunk is classified once after it is written (in
 * the background, once uploads pause: see `SENSITIVITY_QUIET_MS`), and stored with the version of the rules
 * and model that decided it. A passage a draft cites before its turn is classified on the spot,
 * so the gate never decides on a passage without a verdict. A change of rules
 * (`SENSITIVITY_RULES_VERSION`) or of model makes every stored verdict stale: the chunks are
 * classified again, from the start of the service.
 */
export class SensitivityClassifier {
  private readonly semantic: SemanticSensitivity | undefined;
  /** The model could not load here: classification by the rules alone is then complete. */
  private semanticUnavailable = false;
  private readonly work: BackgroundWork;
  private readonly halt = new AbortController();
  /** Chunks classified in the background, for tests and the log. */
  classified = 0;

  constructor(
    private readonly db: Database<typeof tables>,
    /** A source whose every passage is classified is announced again, with its public keywords. */
    private readonly outbox: Outbox,
    embedder: Embedder | null,
    log: Logger,
    private readonly busy: () => boolean = () => false,
    private readonly batch = SENSITIVITY_BATCH,
    quietMs = SENSITIVITY_QUIET_MS,
  ) {
    this.semantic = embedder ? new SemanticSensitivity(embedder) : undefined;
    this.work = new BackgroundWork(() => this.run(), {
      quietMs,
      retryMs: SENSITIVITY_RETRY_MS,
      onFailure: (err) =>
        log.warn(
          { err: (err as Error).message, retryInMs: SENSITIVITY_RETRY_MS },
          'classifying passages failed; they are held for their owner meanwhile',
        ),
    });
  }

  /** The version a classification must carry to count as done. */
  get version(): string {
    return sensitivityVersion(this.semantic && !this.semanticUnavailable ? this.semantic.model : null);
  }

  /** Passages were written (or the rules changed): they are classified once uploads pause for `quietMs` (at once with 0). */
  wake(quietMs?: number): void {
    this.work.wake(quietMs);
  }

  /** Resolves once no step is running or due. */
  settled(): Promise<void> {
    return this.work.settled();
  }

  async stop(): Promise<void> {
    const stopped = this.work.stop();
    this.halt.abort(new Error('the knowledge service is stopping'));
    await stopped;
  }

  private async run(): Promise<void> {
    for (;;) {
      // An upload since the run started (its quiet pending) stops it too: the pause restarts it.
      if (this.work.stopping || this.busy() || this.work.waking) return;
      const version = this.version;
      const rows = await this.db.all<{
        id: number;
        source: string;
        text: string;
        heading: string;
        v: string | null;
      }>(sql`
          select id, source_id as source, text, heading_path as heading, sensitivity_version as v from chunks
          where sensitivity_version is null
             or sensitivity_version < ${version} or sensitivity_version > ${version}
          limit ${this.batch}`);
      if (!rows.length) break;
      // A failure is logged and tried again later by `work` (the passages stay held meanwhile).
      await this.classifyRows(rows, version);
      this.classified += rows.length;
    }
  }

  /**
   * Classifies chunks and stores the verdicts under `version`; returns them. A model that cannot
   * load here leaves the rules' verdicts complete (stored under the rules' version).
   */
  private async classifyRows(
    rows: Array<{ id: number; source: string; text: string; heading: string }>,
    version: string,
  ): Promise<{ verdicts: SensitivityCategory[][]; version: string }> {
    const texts = rows.map((r) => passageForClassification(JSON.parse(r.heading) as string[], r.text));
    let verdicts: SensitivityCategory[][];
    try {
      verdicts = await this.classify(texts, version);
    } catch (err) {
      if (!(err instanceof EmbedderUnavailableError)) throw err;
      this.semanticUnavailable = true;
      version = this.version;
      verdicts = await this.classify(texts, version);
    }
    await this.outbox.transaction(async (tx, emit) => {
      for (const [i, r] of rows.entries())
        await tx.run(
          sql`update chunks set sensitivity = ${JSON.stringify(verdicts[i])}, sensitivity_version = ${version} where id = ${r.id}`,
        );
      await announceClassified(
        tx,
        emit,
        rows.map((r) => r.source),
        version,
      );
    });
    return { verdicts, version };
  }

  private async classify(texts: string[], version: string): Promise<SensitivityCategory[][]> {
    const byRules = await Promise.all(texts.map(classifyByRules));
    if (!this.semantic || version === sensitivityVersion(null)) return byRules;
    const byModel = await this.semantic.classify(texts, this.halt.signal);
    return byRules.map((r, i) => CATEGORIES.filter((c) => r.includes(c) || byModel[i]!.includes(c)));
  }

  /** By source name: how many passages of each of the agent's sources hold each category (and how many wait). */
  async countsBySource(agentId: string): Promise<Map<string, SourceSensitivity>> {
    const rows = await this.db.all<{ source: string; sensitivity: string | null; v: string | null }>(sql`
      select s.name as source, c.sensitivity, c.sensitivity_version as v
      from chunks c join sources s on s.id = c.source_id where c.agent_id = ${agentId}`);
    const out = new Map<string, SourceSensitivity>();
    const version = this.version;
    for (const r of rows) {
      const s = out.get(r.source) ?? emptyCounts();
      out.set(r.source, s);
      if (r.v !== version || r.sensitivity == null) {
        s.unclassified++;
        // What the rules found already counts, so the owner sees it before the model is done.
        if (r.sensitivity == null) continue;
      }
      for (const c of JSON.parse(r.sensitivity) as SensitivityCategory[]) s[c]++;
    }
    return out;
  }

  /**
   * Where the excerpts a draft cites come from, and what those passages hold: each excerpt is
   * found in the chunks of its source (by its words, ellipses aside). An excerpt found in no
   * chunk — an edited answer, a source replaced since — comes back unclassified.
   */
  async passagesOf(
    agentId: string,
    excerpts: Array<{ source: string; text: string }>,
  ): Promise<PassageFacts[]> {
    const names = [...new Set(excerpts.map((e) => e.source))];
    if (!names.length) return [];
    const rows = await this.db.all<{
      id: number;
      source: string;
      sourceId: string;
      heading: string;
      text: string;
      sensitivity: string | null;
      v: string | null;
    }>(sql`
      select c.id, s.name as source, c.source_id as sourceId, c.heading_path as heading, c.text, c.sensitivity, c.sensitivity_version as v
      from chunks c join sources s on s.id = c.source_id
      where c.agent_id = ${agentId} and s.name in (${sql.join(
        names.map((n) => sql`${n}`),
        sql`, `,
      )})`);
    const chunks = rows.map((r) => ({
      ...r,
      words: ` ${words(`${(JSON.parse(r.heading) as string[]).join(' ')} ${r.text}`)} `,
      body: ` ${words(r.text)} `,
    }));
    const found = excerpts.map((e) => {
      const fragments = e.text
        .split(/…|\.\.\./)
        .map(words)
        .filter((f) => f.length > 0);
      return chunks.filter(
        (c) =>
          c.source === e.source &&
          fragments.length > 0 &&
          fragments.every((f) => c.words.includes(` ${f} `) || c.body.includes(` ${f} `)),
      );
    });
    // A cited passage not classified yet (just added, or by older rules) is classified now, so
    // the gate never decides on a guess; the background pass does the others.
    const stale = [...new Set(found.flat())].filter((r) => r.v !== this.version || r.sensitivity == null);
    if (stale.length) {
      const { verdicts, version } = await this.classifyRows(
        stale.map((r) => ({ ...r, source: r.sourceId })),
        this.version,
      );
      stale.forEach((r, i) => {
        r.sensitivity = JSON.stringify(verdicts[i]);
        r.v = version;
      });
    }
    const version = this.version;
    return excerpts.map((e, i) => {
      const holding = found[i]!;
      const sensitivity = new Set<SensitivityCategory>();
      let classified = holding.length > 0;
      for (const c of holding) {
        if (c.v !== version || c.sensitivity == null) classified = false;
        for (const s of JSON.parse(c.sensitivity ?? '[]') as SensitivityCategory[]) sensitivity.add(s);
      }
      return {
        id: holding.map((c) => String(c.id)).join(',') || `excerpt-${i}`,
        source: e.source,
        classified,
        sensitivity: CATEGORIES.filter((c) => sensitivity.has(c)),
      };
    });
  }
}

const emptyCounts = (): SourceSensitivity => ({
  credentials: 0,
  contact: 0,
  health: 0,
  money: 0,
  personal: 0,
  unclassified: 0,
});

/** A text's words, lower-cased, joined by single spaces: how excerpts are found in passages. */
const words = (t: string) => (t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');

/** What is classified of a chunk: its heading path (a "Salaries" heading says what follows) and its text. */
export function passageForClassification(headingPath: string[], text: string): string {
  return headingPath.length ? `${headingPath.join(' › ')}\n${text}` : text;
}
