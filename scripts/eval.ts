/**
 * `pnpm eval`: every evaluation set, one after the other: each root script named `eval:<set>`
 * (a set adds itself with one line in package.json). Prints each set's figures as it goes and
 * exits 1 when any set falls below its floors.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};
const sets = Object.keys(pkg.scripts).filter((s) => s.startsWith('eval:'));
const failed: string[] = [];
for (const set of sets) {
  process.stdout.write(`\n=== ${set} ===\n`);
  const r = spawnSync('pnpm', ['run', '--silent', set], { stdio: 'inherit' });
  if (r.status !== 0) failed.push(set);
}
process.stdout.write(
  `\n${sets.length - failed.length}/${sets.length} sets passed${failed.length ? `; failed: ${failed.join(', ')}` : ''}\n`,
);
process.exitCode = failed.length ? 1 : 0;
