#!/usr/bin/env node
/**
 * Makes sure the compiled JavaScript that `pnpm start` and `pnpm lore` run is there and newer
 * than its sources; builds it (JavaScript only, no declaration files: about a second per
 * package, cached by turbo) when it is not, then bundles every bin (scripts/bundle.mjs: one
 * minified file per bin, a few seconds). Plain JavaScript with no dependencies of its own, so it
 * runs on a fresh clone before anything is built. The start script then `exec`s node on
 * apps/aggregator/dist/bundle/main.js, so the server is the only process left beside pnpm.
 *
 * `node scripts/built.mjs --check` only reports (exit 1 when a build is due).
 * `node scripts/built.mjs --install` is the root `prepare` step of `pnpm install`: the same build,
 * so that the first `pnpm start` after an install starts at once; it does nothing where the build
 * tools are not installed (`pnpm install --prod`) or `LORE_BUILD_ON_INSTALL=false` (the image,
 * which builds in its own step).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const STAMP = join(ROOT, 'node_modules/.cache/lore/built');
/** Held (a directory: mkdir is atomic) while one start builds; another start waits for it. */
const LOCK = join(ROOT, 'node_modules/.cache/lore/building');
/** A lock older than this was left by a build that died. */
const LOCK_STALE_MS = 10 * 60_000;

/** The workspace packages whose dist/ the aggregator's bin loads. */
function packageDirs() {
  const dirs = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const dir = join(ROOT, group, name);
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src'))) dirs.push(dir);
    }
  }
  return dirs;
}

/** The newest modification time under a folder of sources (tests excluded), in ms. */
function newest(path) {
  let max = 0;
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.includes('.test.')) continue;
    const t = newest(join(path, entry.name));
    if (t > max) max = t;
  }
  return max;
}

/** Why a build is due, or undefined when the compiled JavaScript is current. */
export function staleReason() {
  const stamp = statSync(STAMP, { throwIfNoEntry: false });
  if (!stamp) return 'never built here';
  for (const dir of packageDirs()) {
    if (!existsSync(join(dir, 'dist/index.js'))) return `${dir} has no dist/index.js`;
    if (existsSync(join(dir, 'src/main.ts')) && !existsSync(join(dir, 'dist/bundle/main.js'))) {
      return `${dir} has no dist/bundle/main.js`;
    }
    const changed = Math.max(
      newest(join(dir, 'src')),
      newest(join(dir, 'package.json')),
      newest(join(dir, 'tsdown.config.ts')),
    );
    if (changed > stamp.mtimeMs) return `${dir} changed since the last build`;
  }
  for (const file of ['pnpm-lock.yaml', 'tsconfig.base.json', 'scripts/bundle.mjs']) {
    if (newest(join(ROOT, file)) > stamp.mtimeMs) return `${file} changed since the last build`;
  }
  return undefined;
}

function build(reason) {
  process.stderr.write(`Building Lore's JavaScript (${reason})…\n`);
  const turbo = join(ROOT, 'node_modules/.bin/turbo');
  // Everything the build prints goes to stderr: under `lore start --stdio` stdout is the
  // JSON-RPC channel, and one line of turbo's there breaks the client's first parse.
  const r = spawnSync(turbo, ['run', 'build', '--output-logs=errors-only', '--', '--no-dts'], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
    // turbo's telemetry notice is not the build's business.
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: process.env.TURBO_TELEMETRY_DISABLED ?? '1' },
  });
  if (r.status !== 0) {
    throw new Error(`the build failed (${r.error?.message ?? `exit ${r.status}`}); see above`);
  }
  // tsdown empties dist/ (bundle included) when it builds; turbo restores only what it built.
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
  if (b.status !== 0)
    throw new Error(`bundling failed (${b.error?.message ?? `exit ${b.status}`}); see above`);
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `work` holding the build lock (two starts at once, as tests do, build once). */
function locked(work) {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      else sleep(200);
    }
  }
  try {
    work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv.includes('--check')) {
  const reason = staleReason();
  process.stdout.write(reason ? `stale: ${reason}\n` : 'current\n');
  process.exit(reason ? 1 : 0);
}
if (process.argv.includes('--install')) {
  if (process.env.LORE_BUILD_ON_INSTALL === 'false') process.exit(0);
  if (!existsSync(join(ROOT, 'node_modules/.bin/turbo')) || !existsSync(join(ROOT, 'node_modules/esbuild'))) {
    process.stderr.write('lore: the build tools are not installed; `pnpm start` builds when they are\n');
    process.exit(0);
  }
}
try {
  if (staleReason()) {
    locked(() => {
      // Another start may have built it while this one waited.
      const reason = staleReason();
      if (reason) build(reason);
    });
  }
} catch (err) {
  process.stderr.write(`lore: ${err.message}\n`);
  process.exit(1);
}
