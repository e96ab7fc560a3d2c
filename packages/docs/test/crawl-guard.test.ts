import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../src/domain/fetch-guard.js';
import { crawl } from '../src/index.js';
import { listen } from './helpers.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.0.10', true],
    ['169.254.169.254', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::5', true],
    ['::ffff:127.0.0.1', true],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('the crawler against hostile sites', () => {
  let site: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;
  const otherHits: string[] = [];
  const html =
    '<html><head><title>Page</title></head><body><main><h1>Page</h1><p>Text.</p></main></body></html>';

  beforeAll(async () => {
    other = await listen((req, res) => {
      otherHits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
    });
    site = await listen((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/docs/' || path === '/docs/ok') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          html.replace(
            'Text.',
            '<a href="/docs/away">away</a> <a href="/docs/huge">huge</a> <a href="/docs/hop">hop</a>',
          ),
        );
      } else if (path === '/docs/away') {
        res.writeHead(302, { location: `${other.url}/secret` });
        res.end();
      } else if (path === '/docs/hop') {
        res.writeHead(301, { location: '/docs/ok' });
        res.end();
      } else if (path === '/docs/huge') {
        // 2 MB streamed without a Content-Length: the cap must cut it while reading.
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = `<p>${'x'.repeat(64 * 1024)}</p>`;
        for (let i = 0; i < 32; i++) res.write(chunk);
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it('refuses loopback and private addresses unless allowed', async () => {
    const r = await crawl(`${site.url}/docs/`);
    expect(r.documents).toEqual([]);
    expect(r.skipped[0]?.reason).toMatch(
      /private or loopback address \(127\.0\.0\.1\).*LORE_CRAWL_ALLOW_PRIVATE=true/,
    );
    // A public name that resolves to a private address is refused the same way.
    const viaName = await crawl('http://docs.example.test/docs/', { resolve: async () => ['10.0.0.7'] });
    expect(viaName.skipped[0]?.reason).toMatch(/private or loopback address \(10\.0\.0\.7\)/);
  });

  it('checks every redirect (same host and port only) and caps each body while streaming it', async () => {
    const r = await crawl(`${site.url}/docs/`, { allowPrivate: true, maxBytes: 1024 * 1024 });
    expect(otherHits).toEqual([]);
    const reasons = Object.fromEntries(r.skipped.map((s) => [new URL(s.url).pathname, s.reason]));
    expect(reasons['/docs/away']).toMatch(/redirected to another host \(127\.0\.0\.1:\d+\)/);
    expect(reasons['/docs/huge']).toBe('larger than 1048576 bytes');
    // A redirect within the site is followed.
    expect(r.documents.map((d) => new URL(d.uri).pathname).sort()).toEqual(['/docs/', '/docs/ok']);
  });
});
