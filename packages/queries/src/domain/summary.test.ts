import { describe, expect, it } from 'vitest';
import { mergePoints, pointsText } from './summary.js';

describe('mergePoints', () => {
  it('merges the same point from several peers and attributes it to each', () => {
    const points = mergePoints([
      { peer: 'bob', text: 'Surface codes are the leading error correction approach. Qubits are fragile.' },
      { peer: 'carol', text: 'The leading error correction approach is surface codes.' },
    ]);
    expect(points[0]!.peers).toEqual(['bob', 'carol']);
    expect(points[0]!.disagreement).toBeNull();
    expect(points).toHaveLength(2);
    expect(pointsText(points)).toContain('(@bob, @carol)');
  });

  it('flags peers that give different figures or deny a point', () => {
    const figures = mergePoints([
      { peer: 'bob', text: 'The logical error rate halved with 49 physical qubits.' },
      { peer: 'carol', text: 'The logical error rate halved with 72 physical qubits.' },
    ]);
    expect(figures[0]!.disagreement).toMatch(/figures differ: @bob 49 vs @carol 72/);
    const denied = mergePoints([
      { peer: 'bob', text: 'The processor reached the error correction threshold.' },
      { peer: 'carol', text: 'The processor has not reached the error correction threshold.' },
    ]);
    expect(denied[0]!.disagreement).toBe('@carol says otherwise');
    expect(pointsText(denied)).toContain('peers disagree');
  });

  it('says nothing when each point comes from one peer', () => {
    expect(
      pointsText(
        mergePoints([
          { peer: 'bob', text: 'Sourdough needs a starter.' },
          { peer: 'carol', text: 'Kubernetes runs pods.' },
        ]),
      ),
    ).toBe('');
  });
});
