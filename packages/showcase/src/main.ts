#!/usr/bin/env node
import { runStandalone, startupFailure } from '@lore/kit';
import { ShowcaseConfigSchema } from './config.js';
import { createShowcaseService } from './service.js';

const running = await runStandalone('showcase', createShowcaseService, {
  env: process.env,
  schema: ShowcaseConfigSchema,
  argv: process.argv.slice(2),
  defaultPort: 7407,
}).catch((err: unknown) => {
  // A port in use or a bad flag is one line the user can act on, not a stack.
  const failure = startupFailure('showcase', err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
