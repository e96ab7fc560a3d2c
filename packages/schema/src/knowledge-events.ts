import { z } from 'zod';
import { defineEvent } from './events.js';

/** A knowledge source was added or replaced; `keywords` summarise its topics. */
export const KnowledgeSourceAdded = defineEvent(
  'lore.knowledge.source.added',
  z.object({
    agentId: z.string(),
    handle: z.string(),
    source: z.string(),
    keywords: z.array(z.string()),
    chunks: z.number().int(),
    /** Sent again when the owner changes it; absent from older producers (then auto). */
    sharing: z.enum(['auto', 'manual', 'private']).default('auto'),
    /** The owner's one-line summary, "" when none. */
    summary: z.string().default(''),
  }),
);

export const KnowledgeSourceRemoved = defineEvent(
  'lore.knowledge.source.removed',
  z.object({ agentId: z.string(), handle: z.string(), source: z.string() }),
);

/** Asked by the queries service: the recipient's best passages for a question. */
export const KnowledgeRetrieveRequest = z.object({
  agentId: z.string(),
  query: z.string().max(2000),
  limit: z.number().int().min(1).max(50).default(5),
});
export const RetrievedPassage = z.object({
  id: z.string(),
  source: z.string(),
  text: z.string(),
  headingPath: z.array(z.string()),
  score: z.number().describe('Higher is more relevant; comparable within one answer only.'),
  relevant: z.boolean().describe('Above the relevance threshold: safe to draft an answer from.'),
  /** The source's sharing (private sources are never returned); absent from older producers. */
  sharing: z.enum(['auto', 'manual']).default('auto'),
});
export const KnowledgeRetrieveReply = z.object({ passages: z.array(RetrievedPassage) });

/** Every service answers this with its own figures, for platform_stats. */
export const StatsRequest = z.object({ since: z.string().describe('ISO start of "today"') });
export const StatsReply = z.object({ service: z.string(), figures: z.record(z.string(), z.unknown()) });

/**
 * Asked by the approvals service before it decides: what the sources a draft cites are — their
 * sharing and their topics (the source's name and keywords). A name the agent no longer has
 * comes back as `missing`.
 */
export const SourceFactsRequest = z.object({ agentId: z.string(), sources: z.array(z.string()).max(50) });
export const SourceFacts = z.object({
  name: z.string(),
  sharing: z.enum(['auto', 'manual', 'private', 'missing']),
  keywords: z.array(z.string()),
  summary: z.string(),
});
export type SourceFacts = z.infer<typeof SourceFacts>;
export const SourceFactsReply = z.object({ sources: z.array(SourceFacts) });

export const KnowledgeRpc = {
  retrieve: 'rpc.knowledge.retrieve',
  sourceFacts: 'rpc.knowledge.source_facts',
} as const;
/** `rpc.<service>.stats` for each service. */
export const statsSubject = (service: string) => `rpc.${service}.stats`;
