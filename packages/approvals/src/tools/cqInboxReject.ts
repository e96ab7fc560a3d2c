import { appToolMeta } from '@lore/kit';
import { tool } from '../ports.js';
import { cqRejectQuery } from './cqRejectQuery.js';

/** The inbox app rejects through cqRejectQuery itself. */
export const cqInboxReject = tool({
  ...cqRejectQuery,
  name: 'cqInboxReject',
  title: 'Reject a query (inbox app)',
  description: `For the inbox app: ${cqRejectQuery.description}`,
  meta: appToolMeta('ui://lore/inbox', ['app']),
});
