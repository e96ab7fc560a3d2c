#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { KnowledgeConfigSchema } from './config.js';
import { createKnowledgeService } from './service.js';

await serviceMain('knowledge', createKnowledgeService, {
  schema: KnowledgeConfigSchema,
  defaultPort: 7404,
});
