import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** How to start a worker thread on `name` (a module beside this one): `new Worker(entry, { eval, execArgv })`. */
export interface ThreadEntry {
  entry: URL | string;
  eval: boolean;
  execArgv?: string[];
}

/**
 * A thread's entry, as `@lore/ingest`'s parser pool starts its threads. From TypeScript sources
 * (tests, `tsx`) the worker loads `<name>.ts` through tsx's loader; from the built package it is
 * `<name>.js` beside this chunk.
 */
export function threadEntry(name: string, base: string = import.meta.url): ThreadEntry {
  if (base.endsWith('.ts')) {
    const api = tsxEsmApi(base);
    const entry = new URL(`./${name}.ts`, base).href;
    return {
      entry: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`,
      eval: true,
      execArgv: workerExecArgv(),
    };
  }
  return { entry: new URL(`./${name}.js`, base), eval: false };
}

/**
 * The process's Node options that a worker accepts (per-process V8 flags such as `--expose-gc`
 * make `new Worker` throw when passed explicitly), with the `development` condition added.
 */
function workerExecArgv(): string[] {
  const kept = process.execArgv.filter((a) => !PROCESS_ONLY_FLAG.test(a));
  return kept.includes('--conditions=development') ? kept : [...kept, '--conditions=development'];
}

const PROCESS_ONLY_FLAG =
  /^--(?:expose[-_]gc|max[-_]old[-_]space[-_]size|max[-_]semi[-_]space[-_]size|stack[-_]size|inspect|title)\b/;

/** tsx's ESM register API as an `import()` target (require.resolve would name its CommonJS twin). */
function tsxEsmApi(base: string): string {
  const pkgPath = createRequire(base).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(join(dirname(pkgPath), pkg.exports['./esm/api']!.import.default)).href;
}
