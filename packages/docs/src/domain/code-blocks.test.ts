import { describe, expect, it } from 'vitest';
import { fencedBlocks, withCodeBlocks } from './code-blocks.js';

const DOC = [
  '# Run',
  '',
  'First read this. Then start it with:',
  '',
  '```sh',
  'make build',
  'make run',
  '```',
  '',
  'Nothing introduces this one.',
  '~~~',
  'a',
  '',
  'b',
  '~~~',
].join('\n');

describe('fenced code in answers', () => {
  it('finds each block with the sentence before it and its lines as written', () => {
    const blocks = fencedBlocks(DOC);
    expect(blocks.map((b) => b.intro)).toEqual(['Then start it with:', 'Nothing introduces this one.']);
    expect(blocks[0]!.fenced).toBe('```sh\nmake build\nmake run\n```');
    expect(blocks[1]!.code).toBe('a\n\nb');
  });

  it('puts a block after the sentence that introduces it, past its citation markers', () => {
    expect(withCodeBlocks('Then start it with: [1] Done. [2]', [DOC])).toBe(
      'Then start it with: [1]\n\n```sh\nmake build\nmake run\n```\n\nDone. [2]',
    );
  });

  it('adds nothing the answer does not introduce, or already holds', () => {
    expect(withCodeBlocks('Something else entirely. [1]', [DOC])).toBe('Something else entirely. [1]');
    const held = 'Then start it with: [1]\n\n```\nmake build\nmake run\n```';
    expect(withCodeBlocks(held, [DOC])).toBe(held);
  });
});
