import { describe, expect, it } from 'vitest';
import { controlCharacterError } from './input.js';

// The single expression the check used before it was split into two scans.
const BEFORE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|\r(?!\n)/;

describe('controlCharacterError', () => {
  it('refuses exactly what the single expression refused, for every code unit and around \\r', () => {
    for (let c = 0; c <= 0xffff; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      expect(controlCharacterError(text) !== undefined, `U+${c.toString(16)}`).toBe(BEFORE.test(text));
    }
    for (const text of ['\r', '\r\n', 'a\r\nb', 'a\rb', '\r\n\r', '\n\r', 'x\r\n\r\ny', '\t\n'])
      expect(controlCharacterError(text) !== undefined, JSON.stringify(text)).toBe(BEFORE.test(text));
  });

  it('names the field that holds one', () => {
    const e = controlCharacterError({ notes: ['fine', 'bad\u0000'] });
    expect(e?.message).toContain('notes.1');
    expect(controlCharacterError({ notes: ['fine\r\n'] })).toBeUndefined();
  });
});
