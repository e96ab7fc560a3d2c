import { describe, expect, it } from 'vitest';
import { rankFields, rankQuery, rerankBlend } from './rank.js';
import {
  expansionWords,
  identifierParts,
  synonymsOf,
  versionedNames,
  withIdentifierParts,
} from './synonyms.js';

describe('synonyms and identifiers', () => {
  it('finds the other ways of saying an abbreviation or a phrase', () => {
    expect(synonymsOf('Who knows NLP?').map((s) => s.text)).toContain('natural language processing');
    expect(synonymsOf('natural language processing experts').map((s) => s.text)).toContain('nlp');
    expect(synonymsOf('deploying on k8s').map((s) => s.text)).toContain('kubernetes');
    expect(synonymsOf('a natural language')).toEqual([]);
  });

  it('splits camelCase and PascalCase identifiers, leaving acronyms alone', () => {
    expect(identifierParts('use bodyLimit and EnvHttpProxyAgent')).toEqual([
      'body',
      'limit',
      'env',
      'http',
      'proxy',
      'agent',
    ]);
    expect(identifierParts('the HTTP API')).toEqual([]);
    expect(withIdentifierParts('call showRoutes()')).toBe('call showRoutes()\nshow routes');
    expect(expansionWords('set maxSize for gzip')).toEqual(
      expect.arrayContaining(['compress', 'max', 'size']),
    );
  });
});

describe('versioned names', () => {
  it('joins a name and the version after its slash, and expands the joined name', () => {
    expect(versionedNames('talk HTTP/2 without TLS, or HTTP/1.1')).toEqual(['http2', 'http11']);
    expect(versionedNames('and/or, 3/4, a/b, x/2y')).toEqual([]);
    expect(expansionWords('talk HTTP/2 without TLS')).toEqual(expect.arrayContaining(['http2', 'h2']));
    expect(rankQuery('HTTP/2 streams').terms.map((t) => t.text)).toEqual(
      expect.arrayContaining(['http2', 'h2']),
    );
  });
});

describe('rankFields', () => {
  const idf = () => 1;
  const docs = [
    {
      title: 'Logger',
      path: '/docs/logger',
      heading: 'Usage',
      body: 'limit limit limit the body of the log line',
    },
    {
      title: 'Body Limit Middleware',
      path: '/docs/middleware/body-limit',
      heading: 'Usage',
      body: 'Reject large requests.',
    },
  ];

  it('ranks a page whose title and path name the topic above one that repeats a word in its text', () => {
    const ranked = rankFields(rankQuery('body limit'), docs, (d) => d, idf);
    expect(ranked[0]!.item.title).toBe('Body Limit Middleware');
  });

  it('rewards query words that stand together', () => {
    const a = { title: '', path: '', heading: '', body: 'the request body has a size limit set' };
    const b = { title: '', path: '', heading: '', body: 'set a size on the body; the limit is elsewhere' };
    const ranked = rankFields(rankQuery('size limit'), [b, a], (d) => d, idf);
    expect(ranked[0]!.item).toBe(a);
  });

  it('blends with the first-stage score, which still decides between equal fields', () => {
    const same = { title: 'T', path: '', heading: '', body: 'cache entries' };
    const blended = rerankBlend(
      rankQuery('cache'),
      [
        { ...same, s: 1 },
        { ...same, s: 5 },
      ],
      (d) => d.s,
      (d) => d,
      idf,
    );
    expect(blended[0]!.item.s).toBe(5);
  });
});
