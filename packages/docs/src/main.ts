#!/usr/bin/env node
import { runStandalone, startupFailure } from '@lore/kit';
import { DocsConfigSchema } from './config.js';
import { createDocsService } from './service.js';

const running = await runStandalone('docs', (deps) => createDocsService(deps), {
  env: process.env,
  schema: DocsConfigSchema,
  argv: process.argv.slice(2),
  defaultPort: 7408,
}).catch((err: unknown) => {
  // A port in use or a bad flag is one line the user can act on, not a stack.
  const failure = startupFailure('docs', err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
