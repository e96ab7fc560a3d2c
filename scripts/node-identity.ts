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
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../packages/kit/src/config.js';
import { loadNodeIdentity } from '../packages/kit/src/node.js';

const command = new Command('pnpm node-identity')
  .description('print a new node identity (node.json) for the node id given')
  .argument('<node-id>', 'lower-case letters, digits and dashes')
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) })
  .showHelpAfterError()
  .action((id: string) => {
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
  });

try {
  command.parse(process.argv.slice(2), { from: 'user' });
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  process.exitCode = err.exitCode === 0 ? 0 : 2;
}
