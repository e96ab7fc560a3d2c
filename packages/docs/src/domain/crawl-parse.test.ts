import { describe, expect, it } from 'vitest';
import { links, sitemapEntries } from './crawl.js';

describe('sitemap reading', () => {
  it('reads the locations of a sitemap, entities decoded, namespaces and whitespace ignored', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc>
    https://docs.example.com/a?x=1&amp;y=2
  </loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>https://docs.example.com/b</loc><xhtml:link rel="alternate" href="https://docs.example.com/de/b"/></url>
  <url><priority>0.5</priority></url>
</urlset>`;
    expect(sitemapEntries(xml)).toEqual({
      isIndex: false,
      locs: ['https://docs.example.com/a?x=1&y=2', 'https://docs.example.com/b'],
    });
  });

  it('tells a sitemap index from a sitemap, with one entry as with many', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>https://docs.example.com/s1.xml</loc></sitemap></sitemapindex>`;
    expect(sitemapEntries(xml)).toEqual({ isIndex: true, locs: ['https://docs.example.com/s1.xml'] });
    expect(sitemapEntries('<urlset></urlset>')).toEqual({ isIndex: false, locs: [] });
    expect(sitemapEntries('not xml at all')).toEqual({ isIndex: false, locs: [] });
  });
});

describe('link extraction', () => {
  it('keeps absolute http(s) links of anchors in document order, and nothing from text, comments or scripts', () => {
    const html = `<!doctype html><html><body>
      <a href="/guide/start">Start</a> <A HREF='next.html?a=1&amp;b=2'>Next</A>
      <a href=plain>plain</a> <a href="#top">top</a> <a href="mailto:x@example.com">mail</a>
      <a href="javascript:alert(1)">js</a> <a>no href</a> <a href="https://other.example.com/x">other</a>
      <!-- <a href="/commented">c</a> --> <script>var s = '<a href="/scripted">';</script>
      <p>text that says href="/not-a-link"</p><link href="/style.css"></body></html>`;
    expect(links(html, new URL('https://docs.example.com/guide/')).map(String)).toEqual([
      'https://docs.example.com/guide/start',
      'https://docs.example.com/guide/next.html?a=1&b=2',
      'https://docs.example.com/guide/plain',
      'https://other.example.com/x',
    ]);
  });
});
