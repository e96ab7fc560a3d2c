import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const kitSrc = import.meta.dirname;

/**
 * The modules of `@lore/schema` that belong to no service: the kit may import these, and these
 * only. Everything else there is one service's contract (its tools, events and requests).
 */
const NEUTRAL = new Set(['errors', 'events', 'identity', 'protocol', 'rpc', 'stats', 'signed-requests']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every `@lore/schema…` module a file imports or re-exports, as written. */
const schemaImports = (text: string) =>
  [...text.matchAll(/from\s+'(@lore\/schema(?:\/[^']*)?)'|import\(\s*'(@lore\/schema(?:\/[^']*)?)'/g)].map(
    (m) => (m[1] ?? m[2]) as string,
  );

describe('the kit names no service', () => {
  it('imports nothing from @lore/schema but its service-neutral modules', () => {
    const files = sources(kitSrc);
    expect(files.length).toBeGreaterThan(50);
    const offending = files.flatMap((file) =>
      schemaImports(readFileSync(file, 'utf8'))
        .filter((spec) => !NEUTRAL.has(spec.slice('@lore/schema/'.length)))
        .map((spec) => `${relative(kitSrc, file)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('finds an import of a service contract when there is one', () => {
    expect(
      schemaImports(
        "import { UsersRpc } from '@lore/schema/users';\nimport { x } from '@lore/schema';",
      ).filter((spec) => !NEUTRAL.has(spec.slice('@lore/schema/'.length))),
    ).toEqual(['@lore/schema/users', '@lore/schema']);
  });

  it('keeps its neutral modules free of services, but for the list of signed requests', () => {
    const schemaSrc = join(kitSrc, '../../schema/src');
    for (const name of NEUTRAL) {
      if (name === 'signed-requests') continue;
      const imports = [
        ...readFileSync(join(schemaSrc, `${name}.ts`), 'utf8').matchAll(/from\s+'\.\/([^']+)\.js'/g),
      ];
      expect(
        imports.map((m) => m[1]).filter((m) => !NEUTRAL.has(m as string)),
        name,
      ).toEqual([]);
    }
  });
});
