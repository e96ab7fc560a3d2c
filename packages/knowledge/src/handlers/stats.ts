import { statsResponder } from '@lore/kit';
import type { ArticleRepository } from '../domain/articles.js';
import type { KnowledgeBase } from '../domain/knowledge-base.js';

/** The knowledge service's figures for platform_stats (`statsRpc('knowledge')`). */
export const statsHandler = (
  knowledge: KnowledgeBase,
  articles: ArticleRepository,
  totalCalls: () => Promise<number>,
) =>
  statsResponder({
    service: 'knowledge',
    totalCalls,
    async figures(since) {
      const [kb, a] = await Promise.all([knowledge.stats(), articles.counts(since)]);
      return {
        sources: kb.sources,
        chunks: kb.chunks,
        agentsWithKnowledge: kb.agents,
        articles: a.articles,
        articlesToday: a.articlesToday,
        // Whether search reads meaning (the local model's state) or words alone.
        ...knowledge.embeddings(),
      };
    },
  });
