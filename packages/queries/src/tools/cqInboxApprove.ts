import { appToolMeta } from '@lore/kit';
import { INBOX_APP_URI } from '../apps/inbox.js';
import { tool } from '../ports.js';
import { cqAcceptQuery } from './cqAcceptQuery.js';

/** The inbox app (ui://lore/inbox) approves through cqAcceptQuery itself. */
export const cqInboxApprove = tool({
  ...cqAcceptQuery,
  name: 'cqInboxApprove',
  title: 'Approve a query (inbox app)',
  description: 'The inbox app’s Approve button, listed to MCP Apps hosts only: does what cqAcceptQuery does.',
  meta: appToolMeta(INBOX_APP_URI, ['app']),
});
