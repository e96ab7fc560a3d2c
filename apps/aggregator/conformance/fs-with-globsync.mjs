import fs from 'node:fs';
import { join, relative } from 'node:path';

export * from 'node:fs';
export default fs;

/** `globSync('**' + '/name', { cwd })`: every file called `name` below `cwd`, as relative paths. */
export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const m = /^\*\*\/([^*/]+)$/.exec(pattern);
  if (!m) throw new Error(`globSync shim: unsupported pattern ${pattern}`);
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === m[1]) out.push(relative(cwd, p));
    }
  };
  if (fs.existsSync(cwd)) walk(cwd);
  return out;
}
