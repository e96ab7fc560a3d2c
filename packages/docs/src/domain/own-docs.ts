import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Lore's own documentation in a checkout at `root`: the READMEs and BENCHMARKS.md, the files of
 * the corpus `lore` that answer_query reads out of the box. Files that are not there are left out
 * (an installed package without the repository has none).
 */
export function loreDocumentation(root: string): { root: string; files: string[] } {
  const files = ['README.md', 'BENCHMARKS.md', 'infra/README.md'];
  for (const group of ['packages', 'apps']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir))
      if (existsSync(join(dir, name, 'README.md'))) files.push(`${group}/${name}/README.md`);
  }
  return { root, files: files.filter((f) => existsSync(join(root, f))) };
}
