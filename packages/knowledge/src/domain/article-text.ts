/** The text of an article: what it is embedded from, its slug, the summary it gets when none was given. */

/** What an article is embedded from (the model reads about its first 256 tokens). */
export function articleText(a: { title: string; tags: string[]; summary: string; content: string }): string {
  return [a.title, a.tags.length ? `Tags: ${a.tags.join(', ')}` : '', a.summary, a.content.slice(0, 2000)]
    .filter(Boolean)
    .join('\n');
}

export function slugify(title: string): string {
  const s = title
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return s || 'article';
}

/** The start of the article's text (Markdown syntax stripped) when no summary was given. */
export function defaultSummary(content: string, max = 240): string {
  const plain = content
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/^#{1,6}\s+.*$/gm, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`>#|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= max) return plain;
  const cut = plain.slice(0, max - 1);
  const sp = cut.lastIndexOf(' ');
  return `${sp > max / 2 ? cut.slice(0, sp) : cut}…`;
}
