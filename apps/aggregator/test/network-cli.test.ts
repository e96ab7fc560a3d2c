import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LoreConfig, loadNodeIdentity, MemoryDirectory, NodeKeyRefusedError } from '@lore/kit';
import { tempDir } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { confirmedKeysFile, readConfirmedKeys, runNetworkCli } from '../src/network-cli.js';

const run = (argv: string[], config: Partial<LoreConfig>) => {
  let out = '';
  const code = runNetworkCli(argv, config as LoreConfig, { stdout: { write: (s: string) => (out += s) } });
  return { code, out };
};

describe('lore network', () => {
  const dir = tempDir('lore-network-cli-');
  afterAll(() => dir.cleanup());

  it('creates a network key, endorses a node with it, and the directory then believes that node only', async () => {
    const keyFile = join(dir.path, 'network.key');
    const created = run(['create-key', '--out', keyFile], {});
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/BEGIN PUBLIC KEY/);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/BEGIN PRIVATE KEY/);
    // The private key is never overwritten by a second create-key.
    expect(() => run(['create-key', '--out', keyFile], {})).toThrow(/EEXIST/);

    const nodeDir = join(dir.path, 'node');
    const config = { LORE_DATA_DIR: nodeDir, LORE_NODE_ID: 'endorsed' } as LoreConfig;
    const shown = run(['node-key'], config);
    expect(shown.out).toMatch(/^# node endorsed\n-----BEGIN PUBLIC KEY/);
    const pub = join(dir.path, 'node.pub');
    writeFileSync(pub, shown.out.replace(/^#.*\n/, ''));
    const signed = run(['sign-node', '--key', keyFile, '--node', 'endorsed', '--public-key', pub], {});
    const endorsement = signed.out.trim();

    const directory = new MemoryDirectory({ networkKey: created.out });
    const node = loadNodeIdentity(config);
    await expect(directory.registerNode(node.id, node.publicKey)).rejects.toBeInstanceOf(NodeKeyRefusedError);
    await directory.registerNode(node.id, node.publicKey, { endorsement });
    expect(await directory.nodeKeys(node.id)).toEqual([node.publicKey]);
    // The same endorsement does not admit the key under another node id.
    await expect(directory.registerNode('other', node.publicKey, { endorsement })).rejects.toThrow(
      /not endorsed/,
    );
  });

  it('rotates the node key with a hand-over the directory accepts', async () => {
    const config = { LORE_DATA_DIR: join(dir.path, 'rotating'), LORE_NODE_ID: 'rotating' } as LoreConfig;
    const before = loadNodeIdentity(config);
    const directory = new MemoryDirectory();
    await directory.registerNode(before.id, before.publicKey);
    expect(run(['rotate-node-key'], config).code).toBe(0);
    const after = loadNodeIdentity(config);
    expect(after.publicKey).not.toBe(before.publicKey);
    await directory.registerNode(after.id, after.publicKey, { rotatedFrom: after.rotatedFrom });
    expect(await directory.nodeKeys(after.id)).toEqual([after.publicKey]);
  });

  it('confirms other nodes’ keys for the network link, one file readable by the operator only', () => {
    const config = { LORE_DATA_DIR: dir.path } as LoreConfig;
    const pem = (n: number) => {
      const file = join(dir.path, `peer-${n}.pem`);
      writeFileSync(file, `-----BEGIN PUBLIC KEY-----\nkey${n}\n-----END PUBLIC KEY-----\n`);
      return file;
    };
    expect(run(['confirm-key', '--node', 'node-c', '--public-key', pem(1)], config).out).toContain(
      'node node-c',
    );
    run(['confirm-key', '--node', 'node-d', '--public-key', pem(2)], config);
    run(['confirm-key', '--node', 'node-c', '--public-key', pem(3)], config);
    const keys = readConfirmedKeys(dir.path);
    expect(Object.keys(keys).sort()).toEqual(['node-c', 'node-d']);
    expect(keys['node-c']).toContain('key3');
    expect(statSync(confirmedKeysFile(dir.path)).mode & 0o777).toBe(0o600);
    expect(() => run(['confirm-key', '--node', 'node-c'], config)).toThrow(/--public-key/);
    const notKey = join(dir.path, 'not-a-key.txt');
    writeFileSync(notKey, 'hello');
    expect(() => run(['confirm-key', '--node', 'node-c', '--public-key', notKey], config)).toThrow(
      /--public-key .*not-a-key\.txt: not a public key/,
    );
    expect(readConfirmedKeys(join(dir.path, 'nowhere'))).toEqual({});
  });

  it('names what is missing', () => {
    expect(() => run(['sign-node', '--node', 'x'], {})).toThrow(/--key, --public-key/);
    expect(() => run(['create-key'], {})).toThrow(/--out/);
    expect(() => run(['nope'], {})).toThrow(/Unknown network command: nope/);
  });
});
