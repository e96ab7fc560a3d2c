import { describe, expect, it } from 'vitest';
import { parseVerdict } from './generator.js';
import { passages } from './passages.fixture.js';
import { escapeData, resolveCitations } from './prompt.js';

describe('prompt helpers', () => {
  it('escapes angle brackets in data', () => {
    expect(escapeData('a <b> c')).toBe('a &lt;b&gt; c');
  });

  it('parses verdicts strictly', () => {
    expect(parseVerdict('{"decision": "yes", "condition": "c", "reason": "x"}').reason).toBe(
      'model verdict unparsable',
    );
    expect(parseVerdict('{"decision": "allow", "reason": "x"}').reason).toBe('model verdict unparsable');
    expect(parseVerdict('{"decision": "allow", "condition": "c", "reason": ""}').reason).toBe(
      'model verdict unparsable',
    );
    expect(parseVerdict('{"decision": "allow", "condition": "c", "reason": "x", "extra": 1}').reason).toBe(
      'model verdict unparsable',
    );
    expect(parseVerdict('{"decision": "deny", "condition": " c ", "reason": " fine "}')).toEqual({
      matches: true,
      effect: 'deny',
      reason: 'fine',
      condition: 'c',
    });
    expect(parseVerdict('{not json}').reason).toBe('model verdict unparsable');
  });

  it('renumbers citation lists and drops unknown passages', () => {
    const r = resolveCitations('A [2, 1]. B [1][9]. C [0].', passages, 'quota');
    expect(r.text).toBe('A [1, 2]. B [2]. C.');
    expect(r.citations.map((c) => c.id)).toEqual(['p2', 'p1']);
  });
});
