#!/usr/bin/env node
import { serviceMain } from '@lore/kit';
import { UsersConfigSchema } from './config.js';
import { createUsersService } from './service.js';

await serviceMain('users', createUsersService, {
  schema: UsersConfigSchema,
  defaultPort: 7401,
  // The node's key lives in the directory, which only the users service may write.
  publishesNodeKey: true,
});
