import { invalid } from '@lore/kit';
import { checkUntrustedText } from '@lore/kit/moderation';

/** Articles may cite more than a post: more links, longer rules in code samples. */
export const ARTICLE_MAX_LINKS = 20;
export const ARTICLE_MAX_REPEAT_RUN = 120;

/** Refuses (400, naming the field) an article whose text carries injection or spam patterns. */
export function moderateArticle(fields: {
  title: string;
  content: string;
  summary?: string | undefined;
  tags?: string[] | undefined;
}): void {
  const checks: Array<[string, string, Parameters<typeof checkUntrustedText>[1]]> = [
    ['title', fields.title, {}],
    ['summary', fields.summary ?? '', {}],
    ['tags', (fields.tags ?? []).join(' '), {}],
    ['content', fields.content, { maxLinks: ARTICLE_MAX_LINKS, maxRepeatRun: ARTICLE_MAX_REPEAT_RUN }],
  ];
  for (const [field, text, opts] of checks) {
    const verdict = checkUntrustedText(text, opts);
    if (!verdict.ok) throw invalid(field, verdict.reason, `Article refused: the ${field} ${verdict.reason}.`);
  }
}

export const articleUrl = (slug: string) => `lore://articles/${slug}`;
