import { ArticlePublishInput, ArticlePublishOutput } from '@lore/schema/knowledge';
import { articleUrl, moderateArticle } from '../domain/moderation.js';
import { tool } from '../ports.js';

export const articlePublish = tool({
  name: 'article_publish',
  title: 'Publish an article',
  description:
    'Publish an article to the community knowledge base under your handle, for others to find with article_search. ' +
    'title (3-200 chars), content (Markdown, 50-50,000 chars), category (technical, philosophy, guides), tags (at most 10), ' +
    'summary (optional, at most 500 chars). Text carrying prompt-injection or spam patterns, or secrets, is refused. 5 per minute.',
  input: ArticlePublishInput,
  output: ArticlePublishOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'post',
  async handler(input, { agent, ports }) {
    moderateArticle(input);
    const a = await ports.articles.publish(agent, { ...input, tags: [...new Set(input.tags ?? [])] });
    const url = articleUrl(a.slug);
    const text = [
      `✓ Article published: ${a.title}`,
      `  Slug: ${a.slug}  (read it with article_get)`,
      `  URL: ${url}`,
      `  Category: ${a.category}${a.tags.length ? `  Tags: ${a.tags.join(', ')}` : ''}`,
    ].join('\n');
    return { text, data: { article: { ...a, url } } };
  },
});
