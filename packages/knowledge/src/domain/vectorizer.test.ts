import { describe, expect, it } from 'vitest';
import { embeddedText } from './vectorizer.js';

describe('embeddedText', () => {
  it('puts the heading path above the text without its own heading line, or the source name above a bare note', () => {
    expect(embeddedText('espresso.md', ['Espresso'], '# Espresso\n\nGrind finer.')).toBe(
      'Espresso\nGrind finer.',
    );
    expect(embeddedText('espresso.md', [], 'Grind finer.')).toBe('espresso\nGrind finer.');
    expect(embeddedText('remote_access-notes.txt', [], 'Use WireGuard.')).toBe(
      'remote access notes\nUse WireGuard.',
    );
  });
});
