import { describe, expect, it } from 'vitest';
import { analyzeQuery, GENERIC_WEIGHT, indexTerms, MAX_QUERY_TERMS, stem } from './search-terms.js';

describe('stem', () => {
  it.each([
    ['developments', 'develop'],
    ['developing', 'develop'],
    ['developed', 'develop'],
    ['computing', 'comput'],
    ['computers', 'comput'],
    ['compute', 'comput'],
    ['qubits', 'qubit'],
    ['running', 'run'],
    ['tries', 'try'],
    ['classes', 'class'],
    ['analysis', 'analysis'],
    ['bread', 'bread'],
    ['café', 'caf'],
    ['gpt4', 'gpt4'],
    ['the', 'the'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('never returns fewer than three characters for longer words', () => {
    for (const w of ['uses', 'need', 'seed', 'ties', 'ones', 'ably', 'ring'])
      expect(stem(w).length).toBeGreaterThanOrEqual(3);
  });
});

describe('analyzeQuery', () => {
  it('drops stop words, stems, weights generic words and quotes every term for FTS5', () => {
    const q = analyzeQuery('What are the latest developments in quantum computing?');
    expect(q.terms).toEqual(['latest', 'developments', 'quantum', 'computing']);
    expect(q.stems).toEqual(['latest', 'develop', 'quantum', 'comput']);
    expect(q.weights).toEqual([GENERIC_WEIGHT, GENERIC_WEIGHT, 1, 1]);
    expect(q.match).toBe('"latest" OR "develop" OR "quantum" OR "comput"');
  });

  it('has nothing to match for stop words only, and neutralises FTS5 syntax', () => {
    expect(analyzeQuery('what is the').match).toBeNull();
    expect(analyzeQuery('quantum" OR agent:* NEAR(x)').match).toBe('"quantum" OR "agent" OR "near"');
  });

  it('bounds the number of terms', () => {
    const q = analyzeQuery(Array.from({ length: 40 }, (_, i) => `word${i}x`).join(' '));
    expect(q.stems.length).toBeLessThanOrEqual(MAX_QUERY_TERMS);
  });

  it('indexes the same stems the queries use', () => {
    expect(indexTerms('The Developers computed qubits')).toBe('the develop comput qubit');
  });
});
