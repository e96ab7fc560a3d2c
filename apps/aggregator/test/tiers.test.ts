import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAULT_TESTS, otherTiers, SLOW_TESTS } from '../../../vitest.tiers.js';

const REPO = join(import.meta.dirname, '../../..');

/** Every `*.test.ts` of the repository (not dependencies, not build output), repository-relative. */
function allTestFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts')) out.push(relative(REPO, p).split(sep).join('/'));
    }
  };
  walk(REPO);
  return out.sort();
}

/** The vitest projects of `pnpm test` (the root config's `packages/*` and `apps/*`). */
function projectDirs(): string[] {
  return ['packages', 'apps'].flatMap((top) =>
    readdirSync(join(REPO, top), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(REPO, top, e.name, 'vitest.config.ts')))
      .map((e) => `${top}/${e.name}`),
  );
}

interface ProjectTest {
  include: string[];
  exclude: string[];
}

async function projectTest(dir: string): Promise<ProjectTest> {
  const mod = (await import(pathToFileURL(join(REPO, dir, 'vitest.config.ts')).href)) as {
    default: { test: ProjectTest };
  };
  return mod.default.test;
}

describe('test tiers', () => {
  const files = allTestFiles();
  const dirs = projectDirs();

  it('finds the test files and the projects it checks', () => {
    // Positive control: a walk that found nothing would make every check below pass.
    expect(files.length).toBeGreaterThan(100);
    expect(dirs).toContain('packages/kit');
    expect(dirs).toContain('apps/aggregator');
  });

  it('lists only files that exist, each once', () => {
    const listed = [...SLOW_TESTS, ...FAULT_TESTS];
    expect(listed.filter((f) => !files.includes(f))).toEqual([]);
    expect(listed.filter((f, i) => listed.indexOf(f) !== i)).toEqual([]);
  });

  it('puts every test file in exactly one of test, test:slow and test:faults', async () => {
    const tiers = new Map<string, string[]>(files.map((f) => [f, []]));
    for (const f of SLOW_TESTS) tiers.get(f)?.push('test:slow');
    for (const f of FAULT_TESTS) tiers.get(f)?.push('test:faults');
    for (const dir of dirs) {
      const { include, exclude } = await projectTest(dir);
      // Every project takes its src/ and test/ files, and leaves out what the other tiers run.
      expect(include, dir).toEqual(['src/**/*.test.ts', 'test/**/*.test.ts']);
      for (const f of otherTiers(dir)) expect(exclude, `${dir} leaves out ${f}`).toContain(f);
      for (const f of files)
        if (
          /^(src|test)\//.test(f.slice(dir.length + 1)) &&
          f.startsWith(`${dir}/`) &&
          !otherTiers(dir).includes(f.slice(dir.length + 1))
        )
          tiers.get(f)?.push('test');
    }
    const wrong = [...tiers]
      .filter(([, t]) => t.length !== 1)
      .map(([f, t]) => `${f}: ${t.join(', ') || 'none'}`);
    expect(wrong).toEqual([]);
  });
});
