import { describe, expect, it } from 'vitest';
import { citationsDrawnOn } from './citing.js';

const QUANTUM = {
  source: 'quantum_computing.txt',
  excerpt:
    'The latest developments in quantum computing include error-corrected logical qubits demonstrated on superconducting processors.',
};
const SALARY = {
  source: 'salaries.txt',
  excerpt: 'Median engineering salaries rose four percent in 2025 across Europe.',
};
const both = [QUANTUM, SALARY];

describe('citationsDrawnOn: an edit cites the sources it still draws on', () => {
  const table: Array<[string, string, string[]]> = [
    [
      'keeps a quoted sentence',
      'Recent work: error-corrected logical qubits demonstrated on superconducting chips.',
      ['quantum_computing.txt'],
    ],
    [
      'keeps a close paraphrase',
      'Superconducting processors now run logical qubits with error correction; quantum computing developments.',
      ['quantum_computing.txt'],
    ],
    [
      'keeps both when both are used',
      'Logical qubits demonstrated on superconducting processors; salaries rose four percent in 2025.',
      ['quantum_computing.txt', 'salaries.txt'],
    ],
    [
      'drops a source the edit no longer uses',
      'Median engineering salaries rose four percent in 2025.',
      ['salaries.txt'],
    ],
    ['cites nothing for free writing', 'I would rather not discuss this; ask me next week.', []],
    ['is not fooled by one shared word', 'Quantum is a fun word.', []],
    ['is not fooled by common phrases', 'The latest in my life is one of the best.', []],
  ];
  it.each(table)('%s', (_what, text, sources) => {
    expect(citationsDrawnOn(text, both).map((c) => c.source)).toEqual(sources);
  });

  it('keeps each citation once', () => {
    expect(citationsDrawnOn(QUANTUM.excerpt, [QUANTUM, QUANTUM])).toEqual([QUANTUM]);
  });
});
