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
import { parseArgs } from 'node:util';
import { loadConfig } from '../packages/kit/src/config.js';
import { loadNodeIdentity } from '../packages/kit/src/node.js';

const USAGE = 'Usage: pnpm node-identity <node-id>   (lower-case letters, digits and dashes)\n';
let parsed: { values: { help?: boolean | undefined }; positionals: string[] };
try {
  parsed = parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (parsed.positionals.length !== 1) {
  process.stderr.write(`${parsed.positionals.length ? 'Name one node id' : 'Name the node id'}\n${USAGE}`);
  process.exit(2);
}
const id = parsed.positionals[0]!;
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
