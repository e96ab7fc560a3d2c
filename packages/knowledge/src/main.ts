#!/usr/bin/env node
import { runStandalone, startupFailure } from '@lore/kit';
import { KnowledgeConfigSchema } from './config.js';
import { createKnowledgeService } from './service.js';

const running = await runStandalone('knowledge', (deps) => createKnowledgeService(deps), {
  env: process.env,
  schema: KnowledgeConfigSchema,
  argv: process.argv.slice(2),
  defaultPort: 7404,
}).catch((err: unknown) => {
  // A port in use or a bad flag is one line the user can act on, not a stack.
  const failure = startupFailure('knowledge', err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
