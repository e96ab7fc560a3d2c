/**
 * What makes each server installable alone and buildable into an image, checked without
 * building anything: bins, exports for the packed package, build configs, shipped migrations,
 * the Dockerfile's shape, and the "Run it alone" section of each README.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@lore/schema';
import { describe, expect, it } from 'vitest';
import { ROOT, workspacePackages } from '../../../scripts/pack.js';

interface Manifest {
  name: string;
  bin?: Record<string, string>;
  files?: string[];
  exports?: Record<string, unknown>;
  publishConfig?: { exports?: Record<string, { types?: string; default?: string }> };
  dependencies?: Record<string, string>;
}
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** A package's build configuration as tsdown reads it (the module's default export). */
const buildConfig = async (dir: string) =>
  (await import(join(ROOT, dir, 'tsdown.config.ts'))).default as {
    entry: string[] | Record<string, string>;
    fixedExtension?: boolean;
    dts?: boolean;
  };

const SERVERS = [
  ...SERVICE_NAMES.map((s) => ({ dir: `packages/${s}`, bin: `lore-${s}`, migrations: true })),
  { dir: 'apps/aggregator', bin: 'lore', migrations: false },
];

describe('every server package installs and runs alone', () => {
  for (const s of SERVERS) {
    it(`${s.dir}: bin ${s.bin}, dist exports when packed, build config, migrations shipped`, async () => {
      const pkg = manifest(s.dir);
      expect(pkg.bin).toEqual({ [s.bin]: './dist/main.js' });
      expect(pkg.publishConfig?.exports?.['.']).toEqual({
        types: './dist/index.d.ts',
        default: './dist/index.js',
      });
      expect(pkg.files).toContain('dist');
      // The checkout's bundle is not packed: the image bundles where it installs.
      expect(pkg.files).toContain('!dist/bundle');
      expect(read(`${s.dir}/src/main.ts`).startsWith('#!/usr/bin/env node\n')).toBe(true);
      const build = await buildConfig(s.dir);
      // dist/index.js and dist/main.js; a service may also build a testing entry for other services'
      // tests (@lore/users/testing) or a parser thread's task module (named entries).
      expect(build.entry).toMatchObject({ index: 'src/index.ts', main: 'src/main.ts' });
      expect(build.fixedExtension).toBe(false);
      expect(build.dts).toBe(true);
      if (s.migrations) {
        expect(pkg.files).toContain('migrations');
        expect(existsSync(join(ROOT, s.dir, 'migrations', 'meta', '_journal.json'))).toBe(true);
      }
      // Only Lore's own packages come from the workspace; pnpm pack turns them into versions.
      for (const [dep, spec] of Object.entries(pkg.dependencies ?? {}))
        if (spec.startsWith('workspace:')) expect(dep).toMatch(/^@lore\//);
      expect(read(`${s.dir}/README.md`)).toMatch(/^## Run it alone$/m);
    });
  }

  it('the libraries it is built from pack to dist too, with the kit migrations', async () => {
    for (const dir of ['packages/kit', 'packages/schema', 'packages/ingest']) {
      const pkg = manifest(dir);
      expect(pkg.publishConfig?.exports?.['.']?.default).toBe('./dist/index.js');
      expect((await buildConfig(dir)).fixedExtension).toBe(false);
      expect(read(`${dir}/README.md`)).toMatch(/^## Run it alone$/m);
    }
    expect(manifest('packages/kit').files).toContain('migrations');
    // The parser thread's entry is built beside the chunks that start it (see packages/ingest/src/parsers.ts).
    expect((await buildConfig('packages/ingest')).entry).toMatchObject({
      'parse-worker': 'src/parse-worker.ts',
    });
    expect(manifest('packages/ingest').publishConfig?.exports?.['./text']?.default).toBe('./dist/text.js');
    expect(manifest('packages/kit').publishConfig?.exports?.['./testing']?.default).toBe(
      './dist/testing/index.js',
    );
  });

  it("@lore/users/testing builds and packs like the service's own entry", async () => {
    const pkg = manifest('packages/users');
    expect(pkg.exports?.['./testing']).toMatchObject({ development: './src/testing.ts' });
    expect(pkg.publishConfig?.exports?.['./testing']).toEqual({
      types: './dist/testing.d.ts',
      default: './dist/testing.js',
    });
    expect((await buildConfig('packages/users')).entry).toMatchObject({ testing: 'src/testing.ts' });
  });

  it('scripts/pack.ts sees every server with its workspace dependencies', () => {
    const all = workspacePackages();
    for (const s of SERVERS) {
      const name = manifest(s.dir).name;
      expect(all.get(name)?.workspaceDeps).toEqual(expect.arrayContaining(['@lore/kit', '@lore/schema']));
    }
  });
});

describe('the Dockerfile', () => {
  const text = read('Dockerfile');
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = lines.reduce<string[][]>((acc, l) => {
    if (/^FROM\s/i.test(l)) acc.push([]);
    acc.at(-1)?.push(l);
    return acc;
  }, []);
  const runtime = stages.at(-1) ?? [];

  it('builds from node:20-bookworm-slim in stages, for the server named by SERVICE', () => {
    expect(lines[0]).toBe('ARG NODE_IMAGE=node:20-bookworm-slim');
    expect(stages.length).toBeGreaterThanOrEqual(3);
    for (const s of stages) expect(s[0]).toMatch(/^FROM \$\{NODE_IMAGE\}/);
    const pnpm = /pnpm@\$\{PNPM_VERSION\}/.test(text) && /ARG PNPM_VERSION=(\S+)/.exec(text)?.[1];
    expect(pnpm).toBe(
      (JSON.parse(read('package.json')) as { packageManager: string }).packageManager.split('@')[1],
    );
    expect(text).toContain('pnpm install --frozen-lockfile');
    expect(text).toMatch(/pnpm exec tsx scripts\/pack\.ts "\$\{SERVICE\}"/);
    expect(text).toContain('npm install --omit=dev');
    for (const name of [...SERVICE_NAMES, 'aggregator']) expect(text).toContain(name);
  });

  it('runs as a non-root user, on 8080 and all interfaces, with a HEALTHCHECK on /healthz and node dist/bundle/main.js', () => {
    const user = runtime.find((l) => l.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    expect(runtime.join('\n')).toMatch(/LORE_HOST=0\.0\.0\.0/);
    expect(runtime.join('\n')).toMatch(/LORE_PORT=8080/);
    expect(runtime).toContain('EXPOSE 8080');
    const health = runtime.find((l) => l.startsWith('HEALTHCHECK'));
    expect(health).toMatch(/CMD \["node", "-e", .*\/healthz/);
    expect(runtime.at(-1)).toBe('CMD ["node", "--optimize-for-size", "dist/bundle/main.js"]');
    // Nothing from the build stage but the installed /app.
    expect(runtime.filter((l) => l.startsWith('COPY'))).toEqual(['COPY --from=install /app /app']);
  });

  it('bundles the installed server in the install stage with the catalog esbuild, and ships no esbuild', () => {
    const build = stages[0] ?? [];
    const install = stages[1] ?? [];
    expect(build.find((l) => l.includes('scripts/pack.ts'))).toMatch(
      /cp scripts\/bundle\.mjs \/packs\/bundle\.mjs/,
    );
    const catalog = /^ {2}esbuild: (\S+)$/m.exec(
      read('pnpm-workspace.yaml').split(/^catalog:$/m)[1] ?? '',
    )?.[1];
    expect(catalog).toBeTruthy();
    expect(install).toContain(`ARG ESBUILD_VERSION=${catalog}`);
    const run = install.find((l) => l.startsWith('RUN ') && l.includes('bundle.mjs')) ?? '';
    expect(run).toMatch(/npm install --prefix \/bundler .*"esbuild@\$\{ESBUILD_VERSION\}"/);
    // After the tarballs are installed, in place, then the bundler removed.
    const order = [
      'npm install --omit=dev',
      'npm install --prefix /bundler',
      'node /bundler/bundle.mjs /app',
      'rm -rf /bundler',
      'test -f dist/bundle/main.js',
    ];
    const at = order.map((part) => run.indexOf(part));
    expect(
      at.every((i) => i >= 0),
      run,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('leaves dependencies, builds, data and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '**/node_modules', '**/dist', 'data', '.git', '.env', '**/.env'])
      expect(ignored).toContain(entry);
  });
});
