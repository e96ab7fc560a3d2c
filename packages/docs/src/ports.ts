import { type TextGenerator, toolsFor } from '@lore/kit';
import type { IngestTarget } from './domain/ingest.js';
import type { AnswerQuota } from './domain/quota.js';
import type { DocsSearch } from './domain/search.js';
import type { DocsStore } from './domain/store.js';

/** Calls per tool, for platform statistics. */
export class CallCounter {
  private readonly totals = new Map<string, number>();
  private readonly stamps: number[] = [];

  record(tool: string, at = Date.now()): void {
    this.totals.set(tool, (this.totals.get(tool) ?? 0) + 1);
    this.stamps.push(at);
    // Two days are enough for "since the start of today" in any time zone.
    while (this.stamps.length && this.stamps[0]! < at - 2 * 86_400_000) this.stamps.shift();
  }

  byTool(): Record<string, number> {
    return Object.fromEntries(this.totals);
  }

  total(): number {
    let n = 0;
    for (const v of this.totals.values()) n += v;
    return n;
  }

  since(ms: number): number {
    return this.stamps.filter((s) => s >= ms).length;
  }
}

export interface DocsPorts {
  store: DocsStore;
  search: DocsSearch;
  textgen: TextGenerator;
  quota: AnswerQuota;
  calls: CallCounter;
  /** Where docs_ingest writes: the same store, outbox and embedder as the CLI. */
  ingest: IngestTarget;
  /** Lore's own documentation in the corpus `lore`: ingested on the first call that reads the corpus. */
  ownDocs(): Promise<void>;
  /** Handles that may ingest (LORE_DOCS_OPERATORS; by default the node's owner). */
  operators: Pick<ReadonlySet<string>, 'has'>;
  /** Whether docs_ingest may crawl loopback, private and link-local addresses (LORE_CRAWL_ALLOW_PRIVATE). */
  crawlAllowPrivate: boolean;
}

export const tool = toolsFor<DocsPorts>();
