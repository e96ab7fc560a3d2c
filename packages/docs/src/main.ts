#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { DocsConfigSchema } from './config.js';
import { createDocsService } from './service.js';

await serviceMain('docs', createDocsService, {
  schema: DocsConfigSchema,
  defaultPort: 7408,
});
