import { DEFAULT_PARSE_LIMITS, frontMatter, htmlToMarkdown } from '@lore/ingest/text';

export type SourceFormat = 'markdown' | 'mdx' | 'html' | 'text';

/** A file or page turned into what the corpus stores. */
export interface ParsedDocument {
  title: string;
  description: string;
  /** Markdown (plain text stays as it is: it reads as Markdown). */
  content: string;
  /** How the content is split: heading-aware for everything but plain text. */
  splitFormat: 'markdown' | 'text';
}

export const EXTENSIONS: Record<string, SourceFormat> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'mdx',
  '.html': 'html',
  '.htm': 'html',
  '.txt': 'text',
};

/** The format of a path by its extension, or null when it is not ingested. */
export function formatOfPath(path: string): SourceFormat | null {
  const m = /\.[A-Za-z]+$/.exec(path);
  return m ? (EXTENSIONS[m[0].toLowerCase()] ?? null) : null;
}

/** The format of a fetched page, from its Content-Type, else its URL path. */
export function formatOfResponse(contentType: string | null, url: URL): SourceFormat | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/markdown' || type === 'text/x-markdown')
    return formatOfPath(url.pathname) === 'mdx' ? 'mdx' : 'markdown';
  if (type === 'text/plain') return formatOfPath(url.pathname) ?? 'text';
  if (type === '') return formatOfPath(url.pathname);
  return null;
}

const MAX_DESCRIPTION = 300;

/** Parses one source into title, description and Markdown content. `fallbackTitle` comes from the file name. */
export function parseDocument(
  raw: string,
  format: SourceFormat,
  fallbackTitle: string,
  maxNesting = DEFAULT_PARSE_LIMITS.maxNesting,
): ParsedDocument {
  const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (format === 'html') return parseHtml(text, fallbackTitle, maxNesting);
  if (format === 'text') {
    const content = text.trim();
    const paragraphs = content
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean);
    const first = paragraphs[0] ?? '';
    // A short first line standing alone is the title; the paragraph after it the description.
    const headed =
      paragraphs.length > 1 && !first.includes('\n') && first.length <= 100 && !/[.:;,]$/.test(first);
    const title = headed ? first : fallbackTitle;
    const description = ((headed ? paragraphs[1] : first) ?? '').replace(/\s+/g, ' ');
    return { title, description: clip(description, MAX_DESCRIPTION), content, splitFormat: 'text' };
  }
  const { data, body } = frontMatter(text);
  let content = format === 'mdx' ? stripMdx(body) : body;
  content = stripContainers(content)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const str = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);
  const title = str(data.title) || firstHeading(content) || fallbackTitle;
  const description = str(data.description) || clip(firstParagraph(content), MAX_DESCRIPTION);
  return { title, description, content, splitFormat: 'markdown' };
}

function parseHtml(html: string, fallbackTitle: string, maxNesting: number): ParsedDocument {
  const parts = htmlParts(html);
  return fromHtmlParts(parts, htmlToMarkdown(parts.body, maxNesting), fallbackTitle);
}

function htmlParts(html: string): { pageTitle: string; metaDescription: string | undefined; body: string } {
  const pageTitle = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const metaDescription = metaContent(html, 'description') ?? metaContent(html, 'og:description');
  // Prefer the page's main content when it marks it; the rest is chrome.
  const main =
    /<main\b[^>]*>([\s\S]*?)<\/main>/i.exec(html)?.[1] ??
    /<article\b[^>]*>([\s\S]*?)<\/article>/i.exec(html)?.[1];
  return { pageTitle, metaDescription, body: main ?? html };
}

function fromHtmlParts(
  parts: ReturnType<typeof htmlParts>,
  converted: { title: string | null; markdown: string },
  fallbackTitle: string,
): ParsedDocument {
  const content = converted.markdown.replace(/\n{3,}/g, '\n\n').trim();
  const title = cleanTitle(parts.pageTitle) || converted.title || firstHeading(content) || fallbackTitle;
  const description = parts.metaDescription?.trim() || clip(firstParagraph(content), MAX_DESCRIPTION);
  return { title, description, content, splitFormat: 'markdown' };
}

/** `Routing | Hono` → `Routing`: a site suffix after a separator is dropped when the rest is substantial. */
function cleanTitle(title: string): string {
  const m = /^(.{3,}?)\s+[|–—·-]\s+[^|–—·-]{1,40}$/.exec(title);
  return (m?.[1] ?? title).trim();
}

function metaContent(html: string, name: string): string | undefined {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const key = /\b(?:name|property)\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1];
    if (key?.toLowerCase() !== name) continue;
    const content = /\bcontent\s*=\s*"([^"]*)"|\bcontent\s*=\s*'([^']*)'/i.exec(tag);
    const value = content?.[1] ?? content?.[2];
    if (value) return decodeEntities(value);
  }
  return undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === '#') {
      const code =
        e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Applies `fn` to the lines outside fenced code blocks. */
function outsideFences(text: string, fn: (line: string) => string | null): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = null;
      out.push(line);
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(line);
      continue;
    }
    const kept = fn(line);
    if (kept !== null) out.push(kept);
  }
  return out.join('\n');
}

/**
 * MDX to Markdown: ESM `import`/`export` lines, `{/* comments *\/}` and lines that are only
 * JSX tags of components (`<Tabs>`, `<Note type="x">`, `</Tabs>`, `<Foo />`) go; text inside
 * components and fenced code stay. Inline JSX in a paragraph is left alone.
 */
export function stripMdx(text: string): string {
  let inEsm = false;
  const withoutComments = text.replace(/\{\/\*[\s\S]*?\*\/\}/g, '');
  return outsideFences(withoutComments, (line) => {
    if (inEsm) {
      if (/;\s*$|^\s*$|^\s*[}\]]\)?;?\s*$/.test(line)) inEsm = false;
      return null;
    }
    if (/^(?:import|export)\s/.test(line)) {
      // Multi-line imports/exports run to their closing line.
      const complete =
        /(?:from\s+['"][^'"]+['"]|^import\s+['"][^'"]+['"])\s*;?\s*$/.test(line) || /;\s*$/.test(line);
      if (!complete) inEsm = true;
      return null;
    }
    const trimmed = line.trim();
    if (/^(?:<\/?[A-Z][\w.]*(?:\s[^<>]*)?\/?>\s*)+$/.test(trimmed)) return null;
    if (/^<>|^<\/>$/.test(trimmed)) return null;
    return line;
  });
}

/** VitePress/Docusaurus containers (`::: tip Title` … `:::`): the markers go, a custom title stays as bold text. */
function stripContainers(text: string): string {
  return outsideFences(text, (line) => {
    const m = /^ {0,3}:{3,}\s*([\w-]+)?\s*(.*)$/.exec(line);
    if (!m) return line;
    const label = m[2]?.replace(/[{}]/g, '').trim();
    return label ? `**${label}**` : null;
  });
}

/** The text of the first ATX `#` heading (any level when there is no level 1). */
export function firstHeading(markdown: string): string | null {
  let fallback: string | null = null;
  let found: string | null = null;
  outsideFences(markdown, (line) => {
    if (found) return null;
    const m = /^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) {
      const title = inlineText(m[2]!);
      if (m[1] === '#') found = title;
      else fallback ??= title;
    }
    return null;
  });
  return found ?? fallback;
}

/** The first paragraph of prose, as plain text (headings, code, lists' markers, tables and HTML skipped). */
export function firstParagraph(markdown: string): string {
  const para: string[] = [];
  let done = false;
  outsideFences(markdown, (line) => {
    if (done) return null;
    const t = line.trim();
    if (t === '') {
      if (para.length) done = true;
      return null;
    }
    if (/^#{1,6}\s|^\||^<[^>]+>$|^[-*_]{3,}$|^!\[/.test(t)) {
      if (para.length) done = true;
      return null;
    }
    para.push(t.replace(/^(?:[-*+]|\d+[.)])\s+/, '').replace(/^>\s?/, ''));
    return null;
  });
  // A fenced block right at the start is skipped by outsideFences too; good.
  return inlineText(para.join(' '));
}

/** Markdown inline syntax reduced to its text. */
export function inlineText(s: string): string {
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** `getting-started/basic_usage.md` → `Basic usage`. */
export function titleFromPath(path: string): string {
  const base = path.replace(/\/+$/, '').split('/').pop() ?? path;
  const stem = base
    .replace(/\.[A-Za-z]+$/, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  if (!stem || stem.toLowerCase() === 'index') {
    const parts = path.replace(/\/+$/, '').split('/');
    return parts.length > 1 ? titleFromPath(parts.slice(0, -1).join('/')) : 'Index';
  }
  return stem[0]!.toUpperCase() + stem.slice(1);
}
