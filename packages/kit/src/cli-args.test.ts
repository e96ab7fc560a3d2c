import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './cli-args.js';
import { UsageError } from './serve.js';

const spec = {
  source: { type: 'string' },
  'base-uri': { type: 'string' },
  'keep-missing': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

describe('parseCommandLine', () => {
  it('returns the flags by their names and the operands in order, flags before or after them', () => {
    expect(parseCommandLine(['ingest', './a', '--source', 'x', './b', '--keep-missing'], spec)).toEqual({
      values: { source: 'x', 'keep-missing': true },
      positionals: ['ingest', './a', './b'],
    });
    expect(parseCommandLine(['--base-uri=https://e.x/', '-h'], spec).values).toEqual({
      'base-uri': 'https://e.x/',
      help: true,
    });
  });

  it('names the flag it refuses', () => {
    expect(() => parseCommandLine(['--stream', 'x'], spec)).toThrow(UsageError);
    expect(() => parseCommandLine(['--stream', 'x'], spec)).toThrow("unknown option '--stream'");
    expect(() => parseCommandLine(['a', '--source'], spec)).toThrow(/--source/);
  });
});
