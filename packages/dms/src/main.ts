#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { DmsConfigSchema } from './config.js';
import { createDmsService } from './service.js';

await serviceMain('dms', createDmsService, {
  schema: DmsConfigSchema,
  defaultPort: 7406,
});
