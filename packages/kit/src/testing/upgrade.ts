import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';

/**
 * A copy of a migrations folder as it was before the migration tagged `tag` (its journal cut
 * there), in `dir`: what an older release created, for tests that upgrade its database.
 */
export function migrationsBefore(folder: string, dir: string, tag: string): string {
  const out = join(dir, 'old-migrations');
  cpSync(folder, out, { recursive: true });
  const file = join(out, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 1) throw new Error(`no migration tagged ${tag} after the first in ${folder}`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(file, JSON.stringify(journal));
  return out;
}

/**
 * Waits for work to be done (not for a time): polls `probe` until it gives a value other than
 * `undefined` or `false` and returns it, failing with `what` after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await probe();
      if (v === undefined || v === false) throw new Error(`timed out waiting for ${what}`);
      return v;
    },
    { timeout: timeoutMs, interval: 25 },
  );
}
