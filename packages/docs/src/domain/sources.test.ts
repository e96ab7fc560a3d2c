import { describe, expect, it } from 'vitest';
import { nameForUrl, namePath, uriUnder } from './sources.js';

describe('document names', () => {
  it('drops extensions and index files, and maps files under a base URI', () => {
    expect(namePath('api/routing.md')).toBe('api/routing');
    expect(namePath('api/index.mdx')).toBe('api');
    expect(namePath('index.html')).toBe('index');
    expect(uriUnder(new URL('https://hono.dev/docs/'), 'api/routing.md')).toBe(
      'https://hono.dev/docs/api/routing',
    );
    expect(uriUnder(new URL('https://hono.dev/docs'), 'api/index.md')).toBe('https://hono.dev/docs/api/');
    expect(uriUnder(new URL('https://hono.dev/'), 'index.md')).toBe('https://hono.dev/');
    expect(nameForUrl(new URL('https://docs.example.com/storage/docs/creating-buckets.html?x=1#y'))).toBe(
      'documents/docs.example.com/storage/docs/creating-buckets',
    );
    expect(nameForUrl(new URL('http://127.0.0.1:8080/'))).toBe('documents/127.0.0.1:8080/index');
  });
});
