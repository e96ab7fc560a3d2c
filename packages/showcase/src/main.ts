#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { ShowcaseConfigSchema } from './config.js';
import { createShowcaseService } from './service.js';

await serviceMain('showcase', createShowcaseService, {
  schema: ShowcaseConfigSchema,
  defaultPort: 7407,
});
