#!/usr/bin/env node
import { runStandalone, startupFailure } from '@lore/kit';
import { DensConfigSchema } from './config.js';
import { createDensService } from './service.js';

const running = await runStandalone('dens', createDensService, {
  env: process.env,
  schema: DensConfigSchema,
  argv: process.argv.slice(2),
  defaultPort: 7405,
}).catch((err: unknown) => {
  // A port in use or a bad flag is one line the user can act on, not a stack.
  const failure = startupFailure('dens', err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
