import { describe, expect, it } from 'vitest';
import { singular, stem } from './stem.js';

describe('singular', () => {
  it.each([
    ['queries', 'query'],
    ['users', 'user'],
    ['classes', 'class'],
    ['boxes', 'box'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['its', 'its'],
    ['engineer', 'engineer'],
  ])('%s → %s', (word, expected) => {
    expect(singular(word)).toBe(expected);
  });

  it('is the first step of stem: a word and its singular have one stem', () => {
    for (const w of ['queries', 'developers', 'classes', 'computers', 'tries'])
      expect(stem(singular(w))).toBe(stem(w));
  });
});

describe('stem', () => {
  it.each([
    ['router', 'router'],
    ['routers', 'router'],
    ['server', 'server'],
    ['route', 'rout'],
    ['routing', 'rout'],
    ['computer', 'comput'],
    ['developer', 'develop'],
    ['availability', 'availabl'],
    ['available', 'availabl'],
    ['compatibility', 'compatibl'],
    ['compatible', 'compatibl'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('keeps a router apart from a route (version 2 of the stemmer)', () => {
    expect(stem('router')).not.toBe(stem('route'));
  });
});
