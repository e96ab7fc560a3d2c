#!/usr/bin/env node
/**
 * Bundles each Lore bin (the aggregator's `lore`, every service's `lore-<service>`) from its
 * built `dist/main.js` into one minified ES module with split chunks for what it loads lazily:
 * `<package>/dist/bundle/main.js`. A process that loads one file instead of some 200 modules keeps
 * less source text, fewer module records and no two-byte copies of non-ASCII sources
 * (BENCHMARKS.md, "Starting small"). `pnpm start`, `pnpm lore` (through scripts/built.mjs) and the
 * image (Dockerfile, install stage) run the bundle; the unbundled `dist/` stays what the packages
 * ship and what the bundle's lazy paths find files beside.
 *
 * Kept outside the bundle, loaded from where they are installed:
 * - native modules (libSQL), which find their `.node` file from their own location;
 * - what is only loaded lazily and is large (PDF, HTML conversion, OpenTelemetry's SDK, NATS,
 *   the MCP client, the embedder and text generation clients, secret scanning): staying
 *   external keeps them out of memory until used and keeps their own file lookups.
 * An external is imported by a path relative to the bundle (the bundle's folder holds no
 * node_modules of its own: pnpm's layout is per package).
 *
 * Every bundled module's `import.meta.url` (and `import.meta.dirname`, `import.meta.filename`)
 * is its original file's, computed relative to the bundle at run time, so `migrationsFolder`,
 * parser-thread and worker files, assets and `createRequire` resolve as from `dist/`. The entry
 * keeps the bundle's own URL (the stdio launcher names the file that is running).
 *
 *   node scripts/bundle.mjs                     every bin of the workspace
 *   node scripts/bundle.mjs <package dir>...    these packages (e.g. packages/users; a package
 *                                               installed elsewhere, as in the image, works too)
 *   --no-splitting, --no-minify, --no-ascii     for measuring; --out-name NAME writes dist/NAME/
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const ROOT = join(fileURLToPath(import.meta.url), '../..');

/** Packages (and scopes) left external; matched on the specifier's package name. */
export const EXTERNAL = [
  'libsql',
  '@libsql/*',
  '@neon-rs/load',
  'unpdf',
  'pdf-lib',
  'turndown',
  'parse5',
  'robots-parser',
  'fast-xml-parser',
  'openai',
  '@langchain/*',
  // The embedding engine finds its .wasm and .cjs files from its own location.
  '@lat.md/*',
  'compromise',
  '@secretlint/*',
  '@nats-io/*',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/core',
  '@modelcontextprotocol/client',
  'cli-progress',
  'playwright-core',
  'tsx',
  'prom-client',
  'undici',
];

const packageName = (spec) => {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};

const isExternal = (spec) => {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return false;
  const name = packageName(spec);
  return EXTERNAL.some((e) => (e.endsWith('/*') ? name.startsWith(e.slice(0, -1)) : name === e));
};

const posix = (p) => p.split(sep).join('/');

/**
 * esbuild plugin: externals by relative path, and each module's own `import.meta`.
 * @param {string} outdir where the bundle and its chunks are written (all in one folder)
 * @param {string} entry the entry file, whose `import.meta` stays the bundle's
 */
export function lorePlugin(outdir, entry) {
  return {
    name: 'lore-bundle',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'lore-external' || !isExternal(args.path)) return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'lore-external',
        });
        if (r.errors.length > 0) return { errors: r.errors };
        let rel = posix(relative(outdir, r.path));
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return { path: rel, external: true };
      });
      b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        if (args.path === entry) return undefined;
        const source = readFileSync(args.path, 'utf8');
        const usesMeta = /\bimport\.meta\.(url|dirname|filename)\b/.test(source);
        const usesDirname = /\b__(dirname|filename)\b/.test(source);
        if (!usesMeta && !usesDirname) return undefined;
        const rel = posix(relative(outdir, args.path));
        // One declaration per module: esbuild renames module-scope names that collide.
        // `__loreBundleUrl` is the banner's: an `import.meta` here would make esbuild take a
        // CommonJS module for an ES module.
        const own = `new URL(${JSON.stringify(rel)}, __loreBundleUrl)`;
        let contents = source;
        let head = '';
        if (usesMeta) {
          head += `const __loreMetaUrl = ${own}.href;\n`;
          contents = contents
            .replace(/\bimport\.meta\.url\b/g, '__loreMetaUrl')
            .replace(/\bimport\.meta\.filename\b/g, '__loreMetaFile')
            .replace(/\bimport\.meta\.dirname\b/g, '__loreMetaDir');
          if (/__loreMetaFile|__loreMetaDir/.test(contents)) {
            head +=
              'const __loreMetaFile = decodeURIComponent(new URL(__loreMetaUrl).pathname);\n' +
              'const __loreMetaDir = decodeURIComponent(new URL(".", __loreMetaUrl).pathname).replace(/\\/$/, "");\n';
          }
        }
        const cjs =
          !/\b(import|export)\b[^;]*\bfrom\s*['"]|\bexport\s+(default|const|function|class|\{)/.test(source);
        if (usesDirname && cjs) {
          // A CommonJS module's own file and folder (an ES module output has no __dirname).
          head +=
            `var __filename = decodeURIComponent(${own}.pathname);\n` +
            'var __dirname = __filename.slice(0, __filename.lastIndexOf("/"));\n';
        }
        if (!head) return undefined;
        // A shebang must stay the first line.
        const shebang = contents.startsWith('#!') ? contents.slice(0, contents.indexOf('\n') + 1) : '';
        return {
          contents: shebang + head + contents.slice(shebang.length),
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** The bins to bundle: `dist/main.js` of every workspace package that has one. */
function workspaceBins() {
  const dirs = [join(ROOT, 'apps/aggregator')];
  for (const name of readdirSync(join(ROOT, 'packages')).sort()) {
    const dir = join(ROOT, 'packages', name);
    if (existsSync(join(dir, 'src/main.ts'))) dirs.push(dir);
  }
  return dirs;
}

/**
 * `charset: 'ascii'` escapes strings and identifiers but leaves regular expression literals as
 * written (the kit's prompt-injection patterns hold Chinese and Japanese): one such character
 * makes V8 keep the whole file's source two bytes a character. `\\uXXXX` means the same code
 * unit in a string, a template, a regular expression (with or without the `u` flag: a pair of
 * surrogate escapes is one code point there) and an identifier.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  if (!/[^\x00-\x7f]/.test(text)) return;
  const escaped = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(file, escaped);
}

/** Bundles one package's `dist/main.js` into `dist/bundle/`. */
export async function bundlePackage(
  dir,
  { splitting = true, minify = true, ascii = true, outName = 'bundle' } = {},
) {
  const entry = join(dir, 'dist/main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build the package first`);
  const outdir = join(dir, 'dist', outName);
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [entry],
    outdir,
    bundle: true,
    splitting,
    minify,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Two-byte source strings cost twice the memory: V8 keeps every module's source text.
    charset: ascii ? 'ascii' : 'utf8',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    // CommonJS dependencies that `require` Node's builtins need a real `require`.
    banner: {
      js: 'import{createRequire as __loreCreateRequire}from"node:module";const require=__loreCreateRequire(import.meta.url);const __loreBundleUrl=import.meta.url;',
    },
    plugins: [lorePlugin(outdir, resolve(entry))],
  });
  if (ascii) for (const file of Object.keys(result.metafile.outputs)) asciiOnly(resolve(file));
  writeFileSync(join(outdir, 'package.json'), '{"type":"module"}\n');
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  return { outdir, files: Object.keys(result.metafile.outputs).length, bytes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    options: {
      'no-splitting': { type: 'boolean' },
      'no-minify': { type: 'boolean' },
      'no-ascii': { type: 'boolean' },
      'out-name': { type: 'string' },
    },
    allowPositionals: true,
  });
  const opts = {
    splitting: !values['no-splitting'],
    minify: !values['no-minify'],
    ascii: !values['no-ascii'],
    outName: values['out-name'] ?? 'bundle',
  };
  const dirs = positionals.map((a) => resolve(a));
  for (const dir of dirs.length > 0 ? dirs : workspaceBins()) {
    const { outdir, files, bytes } = await bundlePackage(dir, opts);
    process.stderr.write(
      `${posix(relative(process.cwd(), outdir))}: ${files} files, ${(bytes / 1024).toFixed(0)} KiB\n`,
    );
  }
}
