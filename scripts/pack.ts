/**
 * Builds one Lore package and every workspace package it depends on, and packs each into a
 * tarball that installs without this repository and without a registry that knows @lore/*:
 *
 *   tsx scripts/pack.ts users --out ./packs      # lore-schema, lore-kit, lore-users tarballs
 *   npm install ./packs/*.tgz                     # in any empty folder; then: npx lore-users
 *
 * It also writes DIR/packed.json: `{ main, tarballs }` by file name.
 *
 * `pnpm pack` rewrites `workspace:*` and `catalog:` to exact versions and swaps in
 * `publishConfig.exports` (dist/ instead of src/), so the tarballs installed together resolve
 * each other by version and take their third-party dependencies from the npm registry.
 * The Dockerfile and the deploy-pack test use this script, so all three pack the same way.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
  /** The names of the workspace packages it depends on at run time. */
  workspaceDeps: string[];
  bin: Record<string, string>;
}

export interface Packed {
  /** The package asked for. */
  main: string;
  /** Every tarball, dependencies first; install them together. */
  tarballs: string[];
}

/** Every package of the workspace (packages/*, apps/*), by name. */
export function workspacePackages(root = ROOT): Map<string, WorkspacePackage> {
  const out = new Map<string, WorkspacePackage>();
  for (const group of ['packages', 'apps']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      const manifest = join(base, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name: string;
        version: string;
        dependencies?: Record<string, string>;
        bin?: Record<string, string>;
      };
      out.set(pkg.name, {
        name: pkg.name,
        version: pkg.version,
        dir: join(base, entry.name),
        workspaceDeps: Object.entries(pkg.dependencies ?? {})
          .filter(([, spec]) => spec.startsWith('workspace:'))
          .map(([dep]) => dep),
        bin: pkg.bin ?? {},
      });
    }
  }
  return out;
}

/** `users`, `aggregator`, `@lore/kit`… → the package's full name. */
export function resolvePackageName(name: string, all = workspacePackages()): string {
  for (const candidate of [name, `@lore/${name}`]) if (all.has(candidate)) return candidate;
  throw new Error(`no workspace package named ${name} (have: ${[...all.keys()].join(', ')})`);
}

/** The package and its workspace dependencies, each after the ones it needs. */
export function closure(name: string, all = workspacePackages()): WorkspacePackage[] {
  const order: WorkspacePackage[] = [];
  const seen = new Set<string>();
  const visit = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    const pkg = all.get(n);
    if (!pkg) throw new Error(`workspace package ${n} not found`);
    for (const dep of pkg.workspaceDeps) visit(dep);
    order.push(pkg);
  };
  visit(name);
  return order;
}

/** Environment for child tools: the caller's, less what a test runner sets for itself. */
function toolEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'NODE_OPTIONS') delete env[k];
  return env;
}

/** Builds (unless told not to) and packs `name` and its workspace dependencies into `outDir`. */
export function pack(
  name: string,
  outDir: string,
  opts: { build?: boolean; root?: string; quiet?: boolean } = {},
): Packed {
  const root = opts.root ?? ROOT;
  const all = workspacePackages(root);
  const full = resolvePackageName(name, all);
  const pkgs = closure(full, all);
  mkdirSync(outDir, { recursive: true });
  const env = toolEnv();
  if (opts.build !== false) {
    // `<name>...` selects the package and everything it depends on; pnpm runs them in order.
    try {
      execFileSync('pnpm', ['--filter', `${full}...`, 'run', 'build'], {
        cwd: root,
        env,
        stdio: opts.quiet ? 'pipe' : 'inherit',
        encoding: 'utf8',
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(
        `build of ${full} and its dependencies failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`,
      );
    }
  }
  const tarballs: string[] = [];
  for (const pkg of pkgs) {
    const out = execFileSync('pnpm', ['pack', '--json', '--pack-destination', resolve(outDir)], {
      cwd: pkg.dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', opts.quiet ? 'pipe' : 'inherit'],
    });
    const json = JSON.parse(out.slice(out.indexOf('{'))) as { filename: string };
    tarballs.push(json.filename);
  }
  const packed = { main: tarballs[tarballs.length - 1]!, tarballs };
  // For the Dockerfile: which tarball is the server, by file name (the folder moves between stages).
  writeFileSync(
    join(outDir, 'packed.json'),
    `${JSON.stringify({ main: basename(packed.main), tarballs: tarballs.map((t) => basename(t)) }, null, 2)}\n`,
  );
  return packed;
}

const PACK_USAGE = 'Usage: tsx scripts/pack.ts <package> [--out DIR] [--no-build]\n';

function main(argv: string[]) {
  let parsed: {
    values: { out?: string | undefined; 'no-build'?: boolean | undefined; help?: boolean | undefined };
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        'no-build': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${PACK_USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(PACK_USAGE);
    process.exit(0);
  }
  if (positionals.length !== 1) {
    process.stderr.write(
      `${positionals.length ? 'Name one package' : 'Name the package to pack'}\n${PACK_USAGE}`,
    );
    process.exit(2);
  }
  const outDir = resolve(values.out ?? join(ROOT, 'packs'));
  const packed = pack(positionals[0]!, outDir, { build: !values['no-build'] });
  process.stdout.write(`${JSON.stringify(packed, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
