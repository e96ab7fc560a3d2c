import { XMLParser } from 'fast-xml-parser';
import { type DefaultTreeAdapterMap, parse } from 'parse5';
import robotsParserModule from 'robots-parser';
import { ROBOTS_AGENT, USER_AGENT } from './crawl-lazy.js';
import { assertPublic, type Resolve, readCapped } from './fetch-guard.js';
import { formatOfResponse } from './parse.js';
import { nameForUrl, type RawDocument } from './sources.js';

export { ROBOTS_AGENT, USER_AGENT };

interface RobotsTxt {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
// robots-parser is CommonJS whose typings declare an ES default export: take whichever is callable.
const robotsParser = ((robotsParserModule as unknown as { default?: unknown }).default ??
  robotsParserModule) as (url: string, contents: string) => RobotsTxt;

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface CrawlOptions {
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Most pages fetched from one start URL. Default 1000. */
  maxPages?: number;
  fetch?: Fetch;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Fetch loopback, private and link-local addresses too (LORE_CRAWL_ALLOW_PRIVATE). Default false. */
  allowPrivate?: boolean;
  /** Largest response body read, in bytes; a larger page is skipped. Default 10 MiB. */
  maxBytes?: number;
  /** Host name resolution, for the private-address check. */
  resolve?: Resolve;
  /** Called after each page (for progress). */
  onPage?: (url: string, fetched: number, queued: number) => void;
}

export interface CrawlResult {
  documents: RawDocument[];
  skipped: Array<{ url: string; reason: string }>;
}

/** Redirects followed for one request. */
const MAX_REDIRECTS = 5;

const NOT_DOCUMENTS =
  /\.(?:png|jpe?g|gif|svg|webp|ico|css|js|mjs|json|zip|gz|tgz|pdf|mp4|webm|woff2?|ttf|eot|xml|rss|atom)$/i;

interface Robots {
  allowed(url: URL): boolean;
  delayMs: number;
}

/**
 * Fetches a site's pages for ingestion, politely: robots.txt is read first and obeyed
 * (`LoreBot` rules, else `*`, including Crawl-delay), only the start URL's host is fetched,
 * at most `concurrency` requests run at once, and every request says who it is. Every request,
 * and every redirect, is checked again: same host and port as the start URL, and no private or
 * loopback address unless `allowPrivate`. Bodies are read up to `maxBytes`.
 *
 * A sitemap URL (`….xml`, or an XML `<urlset>`/`<sitemapindex>` body) yields its listed pages;
 * any other URL is a start page whose links are followed within its folder.
 */
export async function crawl(start: string, opts: CrawlOptions = {}): Promise<CrawlResult> {
  const doFetch: Fetch = opts.fetch ?? ((u, i) => fetch(u, i));
  const startUrl = new URL(start);
  if (startUrl.protocol !== 'http:' && startUrl.protocol !== 'https:')
    throw new Error(`not an http(s) URL: ${start}`);
  startUrl.hash = '';
  const host = startUrl.host;
  const maxPages = Math.max(1, opts.maxPages ?? 1000);
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const skipped: CrawlResult['skipped'] = [];

  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const get = async (url: URL, accept: string): Promise<Response> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let target = url;
    for (let hop = 0; ; hop++) {
      if (target.host !== host) throw new Error(`redirected to another host (${target.host})`);
      if (!opts.allowPrivate) await assertPublic(target, opts.resolve);
      const res = await doFetch(target, {
        headers: { 'user-agent': USER_AGENT, accept },
        redirect: 'manual',
        signal,
      });
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (!location) return withUrl(res, target);
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      target = new URL(location, target);
      target.hash = '';
    }
  };
  const text = (res: Response) => readCapped(res, maxBytes);

  const robots = await loadRobots(startUrl, get, text);
  const concurrency = robots.delayMs > 0 ? 1 : Math.max(1, opts.concurrency ?? 4);

  const seen = new Set<string>();
  const queue: URL[] = [];
  const enqueue = (u: URL, from: string) => {
    u.hash = '';
    const key = u.href;
    if (seen.has(key)) return;
    seen.add(key);
    if (u.host !== host) skipped.push({ url: key, reason: `another host (linked from ${from})` });
    else if (!robots.allowed(u)) skipped.push({ url: key, reason: 'disallowed by robots.txt' });
    else if (queue.length < maxPages) queue.push(u);
  };

  // A sitemap lists the pages; a page starts a crawl of its folder.
  let follow = true;
  const scope = startUrl.pathname.endsWith('/') ? startUrl.pathname : startUrl.pathname.replace(/[^/]*$/, '');
  if (/\.xml$/i.test(startUrl.pathname)) {
    follow = false;
    for (const u of await sitemapPages(startUrl, get, text, host, robots, skipped)) enqueue(u, startUrl.href);
  } else {
    enqueue(new URL(startUrl.href), 'the command line');
  }

  const documents: RawDocument[] = [];
  const names = new Set<string>();
  let fetched = 0;
  let cursor = 0;
  let lastRequest = 0;

  const fetchPage = async (url: URL) => {
    if (robots.delayMs > 0) {
      const wait = lastRequest + robots.delayMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastRequest = Date.now();
    }
    try {
      const res = await get(url, 'text/html, text/markdown;q=0.9, text/plain;q=0.8, application/xml;q=0.5');
      const finalUrl = new URL(res.url || url.href);
      finalUrl.hash = '';
      if (!res.ok) {
        skipped.push({ url: url.href, reason: `HTTP ${res.status}` });
        await res.body?.cancel();
        return;
      }
      if (finalUrl.host !== host) {
        skipped.push({ url: url.href, reason: `redirected to another host (${finalUrl.host})` });
        await res.body?.cancel();
        return;
      }
      const body = await text(res);
      const type = res.headers.get('content-type');
      // A start URL that turns out to be a sitemap.
      if (follow && url.href === startUrl.href && /<(?:urlset|sitemapindex)[\s>]/.test(body.slice(0, 2000))) {
        follow = false;
        for (const u of await sitemapPages(finalUrl, get, text, host, robots, skipped, body))
          enqueue(u, finalUrl.href);
        return;
      }
      const format = formatOfResponse(type, finalUrl);
      if (!format) {
        skipped.push({ url: url.href, reason: `not a document (${type ?? 'no content type'})` });
        return;
      }
      if (follow && format === 'html') {
        for (const link of links(body, finalUrl)) {
          if (link.pathname.startsWith(scope) && !NOT_DOCUMENTS.test(link.pathname))
            enqueue(link, finalUrl.href);
        }
      }
      const clean = new URL(finalUrl.href);
      clean.search = '';
      const name = nameForUrl(clean);
      if (names.has(name)) return;
      names.add(name);
      documents.push({ name, uri: clean.href, format, origin: finalUrl.href, read: async () => body });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      skipped.push({ url: url.href, reason: (err as Error).message });
    } finally {
      opts.onPage?.(url.href, fetched, queue.length);
    }
  };

  // A pool of at most `concurrency` requests; pages found meanwhile join the queue.
  const active = new Set<Promise<void>>();
  for (;;) {
    while (active.size < concurrency && cursor < queue.length && fetched < maxPages) {
      const url = queue[cursor++]!;
      fetched++;
      const p: Promise<void> = fetchPage(url).finally(() => active.delete(p));
      active.add(p);
    }
    if (active.size === 0) break;
    await Promise.race(active);
  }
  return { documents, skipped };
}

/** The response with the URL it finally came from (a Response's own `url` is read-only). */
function withUrl(res: Response, url: URL): Response {
  if (res.url === url.href) return res;
  Object.defineProperty(res, 'url', { value: url.href });
  return res;
}

type Get = (u: URL, accept: string) => Promise<Response>;
type Text = (res: Response) => Promise<string>;

async function loadRobots(start: URL, get: Get, text: Text): Promise<Robots> {
  const robotsUrl = new URL('/robots.txt', start);
  let rules = '';
  try {
    const res = await get(robotsUrl, 'text/plain');
    // Missing robots.txt (4xx) allows everything; so does an unreachable one after a clean failure.
    if (res.ok) rules = await text(res);
    else await res.body?.cancel();
  } catch {
    rules = '';
  }
  const parsed = robotsParser(robotsUrl.href, rules);
  const delay = Number(parsed.getCrawlDelay(ROBOTS_AGENT) ?? 0);
  return {
    allowed: (u) => parsed.isAllowed(u.href, ROBOTS_AGENT) !== false,
    delayMs: Number.isFinite(delay) && delay > 0 ? Math.min(delay, 30) * 1000 : 0,
  };
}

async function sitemapPages(
  url: URL,
  get: Get,
  text: Text,
  host: string,
  robots: Robots,
  skipped: CrawlResult['skipped'],
  body?: string,
  depth = 0,
): Promise<URL[]> {
  let xml = body;
  if (xml === undefined) {
    const res = await get(url, 'application/xml, text/xml');
    if (!res.ok) throw new Error(`sitemap ${url.href} answered HTTP ${res.status}`);
    xml = await text(res);
  }
  const { locs, isIndex } = sitemapEntries(xml);
  const out: URL[] = [];
  for (const loc of locs) {
    let u: URL;
    try {
      u = new URL(loc, url);
    } catch {
      skipped.push({ url: loc, reason: 'not a URL' });
      continue;
    }
    if (u.host !== host) {
      skipped.push({ url: u.href, reason: 'another host (listed in the sitemap)' });
      continue;
    }
    if (isIndex) {
      if (depth >= 2 || !robots.allowed(u)) continue;
      out.push(...(await sitemapPages(u, get, text, host, robots, skipped, undefined, depth + 1)));
    } else out.push(u);
  }
  return out;
}

const SITEMAP = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

type Entries = { url?: Array<{ loc?: unknown }>; sitemap?: Array<{ loc?: unknown }> } | string;

/** The `<loc>`s of a sitemap or a sitemap index (sitemaps.org schema), and which of the two it is. */
export function sitemapEntries(xml: string): { locs: string[]; isIndex: boolean } {
  const doc = SITEMAP.parse(xml) as { urlset?: Entries; sitemapindex?: Entries };
  const isIndex = doc.sitemapindex !== undefined;
  const list = isIndex ? doc.sitemapindex : doc.urlset;
  const entries = (typeof list === 'object' ? (isIndex ? list.sitemap : list.url) : undefined) ?? [];
  const locs = entries.map((e) => (typeof e.loc === 'string' ? e.loc.trim() : '')).filter(Boolean);
  return { locs, isIndex };
}

type Node = DefaultTreeAdapterMap['node'];

/** Absolute http(s) links of a page's `<a href>`s, in document order. */
export function links(html: string, base: URL): URL[] {
  const out: URL[] = [];
  const stack: Node[] = [parse(html)];
  while (stack.length) {
    const node = stack.pop()!;
    if ('tagName' in node && node.tagName === 'a') {
      const href = node.attrs.find((a) => a.name === 'href')?.value.trim();
      if (href && !href.startsWith('#') && !/^(?:mailto|javascript|tel|data):/i.test(href)) {
        try {
          const u = new URL(href, base);
          if (u.protocol === 'http:' || u.protocol === 'https:') out.push(u);
        } catch {
          // Not a URL: ignore.
        }
      }
    }
    if ('childNodes' in node)
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
  return out;
}
