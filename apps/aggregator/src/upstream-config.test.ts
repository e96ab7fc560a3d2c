import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readUpstreams } from './upstream-config.js';

describe('LORE_SERVICES_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-upstreams-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a YAML file (the yaml parser is loaded only for it) and names a bad field', () => {
    const file = join(dir, 'upstreams.yaml');
    writeFileSync(file, 'upstreams:\n  - name: users\n    url: http://users:8080/mcp\n    kind: lore\n');
    expect(readUpstreams({ LORE_SERVICES_FILE: file })).toMatchObject([
      { name: 'users', url: 'http://users:8080/mcp', kind: 'lore' },
    ]);
    writeFileSync(file, 'upstreams:\n  - name: Users!\n    url: http://users:8080/mcp\n');
    expect(() => readUpstreams({ LORE_SERVICES_FILE: file })).toThrow(/upstreams\.0\.name/);
  });

  it('reads the same from JSON', () => {
    const file = join(dir, 'upstreams.json');
    writeFileSync(file, JSON.stringify({ upstreams: [{ name: 'ext', command: ['node', 'x.js'] }] }));
    expect(readUpstreams({ LORE_SERVICES_FILE: file })).toMatchObject([
      { name: 'ext', command: ['node', 'x.js'], kind: 'external' },
    ]);
  });
});
