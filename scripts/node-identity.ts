/**
 * Prints a new node identity (the node.json every Lore process of one deployment must share:
 * the node id and its Ed25519 signing key pair), made by the kit's own loadNodeIdentity.
 *
 *   pnpm node-identity lore-prod > node.json
 *   kubectl -n lore create secret generic lore-node --from-file=node.json
 *
 * The private key is in it: keep the file out of version control and delete it once stored.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../packages/kit/src/config.js';
import { loadNodeIdentity } from '../packages/kit/src/node.js';

const id = process.argv[2];
if (!id) {
  process.stderr.write('Usage: pnpm node-identity <node-id>   (lower-case letters, digits and dashes)\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'lore-node-'));
try {
  loadNodeIdentity(loadConfig({ LORE_DATA_DIR: dir, LORE_NODE_ID: id }));
  process.stdout.write(readFileSync(join(dir, 'node.json'), 'utf8'));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
