import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../../..');
const MAX_LINES = 350;

/**
 * Source files allowed over `MAX_LINES`, each with its reason. An entry that is no longer over
 * the limit (or no longer exists) fails the test, so the list only shrinks.
 */
const OVER_LIMIT: Record<string, string> = {};

/** Non-test TypeScript under `roots` (repository-relative), without dependencies, build output or test folders. */
function sources(roots: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', 'test', 'fixtures'].includes(e.name) || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
        out.push(relative(REPO, p).split(sep).join('/'));
    }
  };
  for (const root of roots) walk(join(REPO, root));
  return out.sort();
}

const packageDirs = (top: string, sub: string) =>
  readdirSync(join(REPO, top), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${top}/${e.name}/${sub}`)
    .filter((dir) => {
      try {
        return readdirSync(join(REPO, dir)).length > 0;
      } catch {
        return false;
      }
    });

const lineCount = (file: string) =>
  readFileSync(join(REPO, file), 'utf8').replace(/\n$/, '').split('\n').length;

describe('source shape', () => {
  const shaped = sources([
    ...packageDirs('packages', 'src'),
    ...packageDirs('apps', 'src'),
    'scripts',
    'bench',
  ]);

  it(`keeps every source file at ${MAX_LINES} lines or fewer, but the listed ones`, () => {
    expect(shaped.length).toBeGreaterThan(300);
    const over = shaped.filter((f) => lineCount(f) > MAX_LINES && !(f in OVER_LIMIT));
    expect(over.map((f) => `${f}: ${lineCount(f)} lines`)).toEqual([]);
  });

  it('lists only files that are still over the limit', () => {
    const stale = Object.keys(OVER_LIMIT).filter((f) => !shaped.includes(f) || lineCount(f) <= MAX_LINES);
    expect(stale).toEqual([]);
  });

  it('writes no request subject outside @lore/schema: callers use the defineRpc declarations', () => {
    const everywhere = sources([
      ...packageDirs('packages', '').filter((d) => d !== 'packages/schema/'),
      ...packageDirs('apps', ''),
      'scripts',
      'bench',
      'tools',
    ]);
    expect(everywhere.length).toBeGreaterThan(shaped.length);
    const literal = /['"`]rpc\./;
    const found = everywhere.flatMap((f) =>
      readFileSync(join(REPO, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (literal.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
