#!/usr/bin/env node
import { runStandalone, startupFailure } from '@lore/kit';
import { UsersConfigSchema } from './config.js';
import { createUsersService } from './service.js';

const running = await runStandalone('users', createUsersService, {
  env: process.env,
  schema: UsersConfigSchema,
  argv: process.argv.slice(2),
  defaultPort: 7401,
  // The node's key lives in the directory, which only the users service may write.
  publishesNodeKey: true,
}).catch((err: unknown) => {
  // A port in use or a bad flag is one line the user can act on, not a stack.
  const failure = startupFailure('users', err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
