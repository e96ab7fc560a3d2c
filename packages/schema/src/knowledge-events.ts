import { z } from 'zod';
import { FoundBy } from './common.js';
import { defineEvent } from './events.js';
import { SensitivityCategory } from './knowledge.js';
import { defineRpc } from './rpc.js';

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
  /** Which signals found it (words, meaning); absent from older producers. */
  foundBy: FoundBy.default([]),
  /** Its similarity of meaning to the question (cosine); absent when it was judged by words alone. */
  similarity: z.number().optional(),
  /** The passage cut around the words it shares with the question; absent from older producers. */
  excerpt: z.string().optional(),
});
export const KnowledgeRetrieveReply = z.object({ passages: z.array(RetrievedPassage) });

/**
 * Asked by the approvals service before it decides: what the sources a draft cites are — their
 * sharing and their topics (the source's name and keywords). A name the agent no longer has
 * comes back as `missing`.
 */
export const SourceFactsRequest = z.object({
  agentId: z.string(),
  sources: z.array(z.string()).max(50),
  /** The draft's cited excerpts: the passages they come from, and those passages' sensitivity, come back. */
  excerpts: z
    .array(z.object({ source: z.string(), text: z.string().max(20_000) }))
    .max(100)
    .default([]),
  /** Topics the owner's conditions name: each is scored by meaning against the draft and the cited passages. */
  topics: z.array(z.string().max(200)).max(20).default([]),
  /** The draft that would be released, scored against `topics`. */
  draft: z.string().max(20_000).default(''),
  /** What the question asks (its request parts), each scored against `topics`. */
  requests: z.array(z.string().max(2_000)).max(20).default([]),
});
export const SourceFacts = z.object({
  name: z.string(),
  sharing: z.enum(['auto', 'manual', 'private', 'missing']),
  keywords: z.array(z.string()),
  summary: z.string(),
  /**
   * The broad subjects the source is about by meaning (programming, science, medicine,
   * finance); null when the node has no embedding model (then names and keywords decide).
   */
  subjects: z.array(z.string()).nullable().default(null),
});
export type SourceFacts = z.infer<typeof SourceFacts>;
/**
 * The classification at ingest of the passages one cited excerpt comes from (`id`: their chunk
 * ids): `classified` false while one waits for it, or when the excerpt is found in no passage of
 * its source (replaced since, or not quoted from it), which the gate treats like a sensitive one.
 */
export const PassageFacts = z.object({
  id: z.string(),
  source: z.string(),
  classified: z.boolean(),
  sensitivity: z.array(SensitivityCategory),
});
export type PassageFacts = z.infer<typeof PassageFacts>;
/**
 * How close each asked topic is in meaning (cosine of the embedding model's vectors) to the
 * draft and to each cited excerpt's passages (the vectors stored for them at ingest). `off`: the
 * node has no embedding model (words decide); `unavailable`: it has one that failed now.
 */
export const TopicMeaning = z.object({
  status: z.enum(['scored', 'off', 'unavailable']),
  scores: z.array(
    z.object({
      topic: z.string(),
      draft: z.number(),
      /** One per cited excerpt, in the request's order: the best of the passages it comes from. */
      passages: z.array(z.object({ source: z.string(), score: z.number() })),
      /** One per request part of the question, in the request's order (absent from older producers). */
      requests: z.array(z.number()).default([]),
      /**
       * One per cited source: the mean vector of its first passages, so that a passage which
       * says what it is about only through its neighbours ("put a descaling tablet in the water
       * tank" on a page about the coffee machine) is judged with them.
       */
      sources: z.array(z.object({ source: z.string(), score: z.number() })).default([]),
    }),
  ),
});
export type TopicMeaning = z.infer<typeof TopicMeaning>;
export const SourceFactsReply = z.object({
  sources: z.array(SourceFacts),
  passages: z.array(PassageFacts).default([]),
  /** Absent from older producers: then as without a model. */
  meaning: TopicMeaning.default({ status: 'off', scores: [] }),
});

export const KnowledgeRpc = {
  retrieve: defineRpc('rpc.knowledge.retrieve', KnowledgeRetrieveRequest, KnowledgeRetrieveReply),
  sourceFacts: defineRpc('rpc.knowledge.source_facts', SourceFactsRequest, SourceFactsReply),
};
