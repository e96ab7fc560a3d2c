import { describe, expect, it } from 'vitest';
import { citeDocuments } from './answer.js';

describe('citeDocuments', () => {
  it('numbers markers by cited document, first cited first, merging repeats', () => {
    const citations = [{ source: 'documents/a' }, { source: 'documents/b' }, { source: 'documents/a' }];
    expect(citeDocuments('One [1]. Two [2]. Three [3] [1]. Both [1, 2].', citations)).toEqual({
      text: 'One [1]. Two [2]. Three [1]. Both [1, 2].',
      references: ['documents/a', 'documents/b'],
    });
    expect(citeDocuments('Starts with b [2], then a [3].', citations).references).toEqual([
      'documents/b',
      'documents/a',
    ]);
    expect(citeDocuments('Unknown [9] stays.', citations)).toEqual({
      text: 'Unknown [9] stays.',
      references: [],
    });
  });
});
