import { describe, expect, it } from 'vitest';
import { isWithin, parseRoots } from './paths.js';

describe('isWithin', () => {
  it.each([
    ['/data/kb', '/data/kb/a.txt', true],
    ['/data/kb', '/data/kb/sub/b.pdf', true],
    ['/data/kb', '/data/kb', true],
    ['/data/kb', '/data/kb-evil/a.txt', false],
    ['/data/kb', '/data/a.txt', false],
    ['/data/kb', '/etc/passwd', false],
    ['/data/kb', '/data/kb/..foo', true],
  ])('%s contains %s: %s', (root, p, expected) => {
    expect(isWithin(root, p)).toBe(expected);
  });
});

describe('parseRoots', () => {
  it('splits on commas, trims and resolves', () => {
    expect(parseRoots(' /a , /b/../c ,,')).toEqual(['/a', '/c']);
    expect(parseRoots(undefined)).toEqual([]);
  });
});
