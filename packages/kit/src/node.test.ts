import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { loadNodeIdentity, nodeIdentityFile } from './node.js';
import { tempDir } from './testing/index.js';

describe('the node identity of processes started separately (LORE_NODE_FILE)', () => {
  it('two processes with their own data directories and one LORE_NODE_FILE are one node', () => {
    const dir = tempDir('lore-node-file-');
    try {
      // The file `pnpm node-identity my-node > node.json` writes: made once, elsewhere.
      const made = loadNodeIdentity(
        loadConfig({ LORE_DATA_DIR: join(dir.path, 'maker'), LORE_NODE_ID: 'my-node' }),
      );
      const file = join(dir.path, 'node.json');
      writeFileSync(file, readFileSync(join(dir.path, 'maker', 'node.json')));
      const users = loadNodeIdentity(
        loadConfig({ LORE_DATA_DIR: join(dir.path, 'users'), LORE_NODE_FILE: file }),
      );
      const dens = loadNodeIdentity(
        loadConfig({ LORE_DATA_DIR: join(dir.path, 'dens'), LORE_NODE_FILE: file }),
      );
      expect(users).toEqual(made);
      expect(dens).toEqual(made);
      // Neither made one of its own in its data directory.
      expect(existsSync(join(dir.path, 'users', 'node.json'))).toBe(false);
      expect(existsSync(join(dir.path, 'dens', 'node.json'))).toBe(false);
      expect(nodeIdentityFile({ LORE_DATA_DIR: join(dir.path, 'users'), LORE_NODE_FILE: file })).toBe(file);
    } finally {
      dir.cleanup();
    }
  });

  it('a missing or malformed file is a ConfigError naming LORE_NODE_FILE, and nothing is made in its place', () => {
    const dir = tempDir('lore-node-file-');
    try {
      const missing = join(dir.path, 'absent.json');
      const load = (file: string) =>
        loadNodeIdentity(loadConfig({ LORE_DATA_DIR: join(dir.path, 'data'), LORE_NODE_FILE: file }));
      expect(() => load(missing)).toThrow(ConfigError);
      expect(() => load(missing)).toThrow(
        /LORE_NODE_FILE: .*absent\.json does not exist .*pnpm node-identity/,
      );
      expect(existsSync(missing)).toBe(false);
      expect(existsSync(join(dir.path, 'data', 'node.json'))).toBe(false);
      const garbled = join(dir.path, 'garbled.json');
      writeFileSync(garbled, 'not json');
      expect(() => load(garbled)).toThrow(/LORE_NODE_FILE: .*garbled\.json is not a node identity file/);
      const partial = join(dir.path, 'partial.json');
      writeFileSync(partial, JSON.stringify({ id: 'my-node', publicKey: 'x' }));
      expect(() => load(partial)).toThrow(/LORE_NODE_FILE: .*partial\.json has no privateKey/);
    } finally {
      dir.cleanup();
    }
  });
});
