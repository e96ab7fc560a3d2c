#!/usr/bin/env node
import { runStandalone } from '@lore/kit';
import { createShowcaseService } from './service.js';

const running = await runStandalone('showcase', createShowcaseService, {
  env: process.env,
  argv: process.argv.slice(2),
  defaultPort: 7407,
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
