import { appToolMeta } from '@lore/kit';
import { tool } from '../ports.js';
import { cqAcceptQuery } from './cqAcceptQuery.js';

/** The inbox app (ui://lore/inbox, served by queries) approves through cqAcceptQuery itself. */
export const cqInboxApprove = tool({
  ...cqAcceptQuery,
  name: 'cqInboxApprove',
  title: 'Approve a query (inbox app)',
  description: `For the inbox app: ${cqAcceptQuery.description}`,
  meta: appToolMeta('ui://lore/inbox', ['app']),
});
