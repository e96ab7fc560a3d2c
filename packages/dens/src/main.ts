#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { DensConfigSchema } from './config.js';
import { createDensService } from './service.js';

await serviceMain('dens', createDensService, {
  schema: DensConfigSchema,
  defaultPort: 7405,
});
