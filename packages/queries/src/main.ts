#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { QueriesConfigSchema } from './config.js';
import { createQueriesService } from './service.js';

await serviceMain('queries', createQueriesService, {
  schema: QueriesConfigSchema,
  defaultPort: 7402,
});
