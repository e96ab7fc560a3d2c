import { appToolMeta } from '@lore/kit';
import { INBOX_APP_URI } from '../apps/inbox.js';
import { tool } from '../ports.js';
import { cqUpdateEditAnswer } from './cqUpdateEditAnswer.js';

/** The inbox app's edit button: cqUpdateEditAnswer itself, offered to the app only. */
export const cqInboxEditAnswer = tool({
  ...cqUpdateEditAnswer,
  name: 'cqInboxEditAnswer',
  title: 'Edit a drafted answer (inbox app)',
  description:
    'The inbox app’s Save edit button, listed to MCP Apps hosts only: does what cqUpdateEditAnswer does.',
  meta: appToolMeta(INBOX_APP_URI, ['app']),
});
