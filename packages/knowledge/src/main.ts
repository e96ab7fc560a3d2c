#!/usr/bin/env node
import { runStandalone } from '@lore/kit';
import { createKnowledgeService } from './service.js';

const running = await runStandalone('knowledge', (deps) => createKnowledgeService(deps), {
  env: process.env,
  argv: process.argv.slice(2),
  defaultPort: 7404,
});
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
