#!/usr/bin/env node
import { runStandalone, startupFailure } from '@lore/kit';
import { DmsConfigSchema } from './config.js';
import { createDmsService } from './service.js';

const running = await runStandalone('dms', createDmsService, {
  env: process.env,
  schema: DmsConfigSchema,
  argv: process.argv.slice(2),
  defaultPort: 7406,
}).catch((err: unknown) => {
  // A port in use or a bad flag is one line the user can act on, not a stack.
  const failure = startupFailure('dms', err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
