import { appToolMeta } from '@lore/kit';
import { INBOX_APP_URI } from '../apps/inbox.js';
import { tool } from '../ports.js';
import { cqRejectQuery } from './cqRejectQuery.js';

/** The inbox app rejects through cqRejectQuery itself. */
export const cqInboxReject = tool({
  ...cqRejectQuery,
  name: 'cqInboxReject',
  title: 'Reject a query (inbox app)',
  description: 'The inbox app’s Reject button, listed to MCP Apps hosts only: does what cqRejectQuery does.',
  meta: appToolMeta(INBOX_APP_URI, ['app']),
});
