import { toolsFor } from '@lore/kit';
import type { ArticleRepository } from './domain/articles.js';
import type { KnowledgeBase } from './domain/knowledge-base.js';
import type { SourceSharing } from './domain/sharing.js';

export interface KnowledgePorts {
  knowledge: KnowledgeBase;
  articles: ArticleRepository;
  sharing: SourceSharing;
  /** Directories file_path may read from (LORE_KNOWLEDGE_ROOTS); empty: file_path is refused. */
  roots: string[];
}

export const tool = toolsFor<KnowledgePorts>();
