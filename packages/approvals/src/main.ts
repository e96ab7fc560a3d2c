#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { ApprovalsConfigSchema } from './config.js';
import { createApprovalsService } from './service.js';

await serviceMain('approvals', createApprovalsService, {
  schema: ApprovalsConfigSchema,
  defaultPort: 7403,
});
