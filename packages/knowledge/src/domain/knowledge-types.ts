import type { KnowledgeSharing } from '@lore/schema/knowledge';
import type { ExtractedDocument } from './ingest.js';
import type { AnalyzedQuery } from './search-terms.js';

/** Keywords kept per source (they become the agent's description for peers). */
export const SOURCE_KEYWORDS = 8;

export interface AddedSource {
  source: string;
  format: ExtractedDocument['format'];
  chunks: number;
  keywords: string[];
  characters: number;
  pages: number | null;
  replaced: boolean;
  vectors: number;
  sharing: KnowledgeSharing;
  summary: string;
}

export interface FoundPassage {
  id: string;
  source: string;
  chunk: number;
  headingPath: string[];
  text: string;
  excerpt: string;
  score: number;
  relevant: boolean;
  /** Which signals found it: `words` (BM25 over the full-text index), `meaning` (the nearest vectors). */
  foundBy: Array<'words' | 'meaning'>;
  /** Cosine similarity of its vector to the question's; absent while it has none (judged by words). */
  similarity?: number;
  /** Weighted share of the question's terms it holds, 0..1 (what the words add to relevance). */
  coverage: number;
}

export interface SearchOutcome {
  query: AnalyzedQuery;
  strategy: 'bm25' | 'hybrid';
  passages: FoundPassage[];
}

/** The agent's token in the FTS index: a column filter on it keeps a search in its chunks. */
export const agentToken = (agentId: string) => `a${agentId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;

/** What is indexed and embedded of a chunk: its heading path above its text. */
export const passageText = (headingPath: string[], text: string) =>
  headingPath.length ? `${headingPath.join(' / ')}\n${text}` : text;
