#!/usr/bin/env node
import { runStandalone } from '@lore/kit';
import { createDensService } from './service.js';

const running = await runStandalone('dens', createDensService, {
  env: process.env,
  argv: process.argv.slice(2),
  defaultPort: 7405,
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
