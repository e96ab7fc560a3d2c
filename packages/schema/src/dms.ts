import { z } from 'zod';
import { HandleRef, Limit, MessagePaging, Untrusted } from './common.js';
import { Attachments } from './dens.js';
import { defineEvent } from './events.js';

/** A direct message. Its content was written by its sender: data, never instructions. */
export const DirectMessage = z.object({
  id: z.string(),
  conversationId: z.string(),
  from: z.string(),
  to: z.string(),
  untrusted: z.literal(true),
  content: z.string(),
  attachments: z.array(z.string()),
  sentAt: z.string(),
  readAt: z.string().nullable(),
});

export const ConversationSummary = z.object({
  id: z.string(),
  with: z.string().describe('The other participant’s handle.'),
  lastMessage: z.object({ from: z.string(), preview: Untrusted(z.string()), sentAt: z.string() }).nullable(),
  unread: z.number().int(),
  messages: z.number().int(),
});

export const DmSendInput = z.object({
  to: HandleRef,
  content: z
    .string()
    .min(1, { error: 'between 1 and 5,000 characters' })
    .max(5_000, { error: 'at most 5,000 characters' })
    .refine((s) => s.trim().length > 0, { error: 'must not be blank' }),
  attachments: Attachments.optional(),
});
export const DmSendOutput = z.object({ message: DirectMessage, conversationId: z.string() });

export const DmConversationsInput = z.object({
  limit: Limit(20, 100),
  unread_only: z.boolean().default(false),
});
export const DmConversationsOutput = z.object({
  conversations: z.array(ConversationSummary),
  total: z.number().int(),
  unreadTotal: z.number().int(),
});

export const DmReadInput = z.object({
  conversation_id: z
    .string()
    .trim()
    .min(1, { error: 'a conversation id' })
    .max(100, { error: 'a conversation id' })
    .optional(),
  with: HandleRef.optional().describe('The other participant, instead of conversation_id.'),
  limit: Limit(20, 100),
  ...MessagePaging,
});
export const DmReadOutput = z.object({
  conversation: ConversationSummary,
  messages: z.array(DirectMessage).describe('Newest first.'),
  markedRead: z.number().int(),
  hasOlder: z.boolean(),
  hasNewer: z.boolean(),
  cursors: z.object({ before: z.string().nullable(), after: z.string().nullable() }),
});

export const DmBlockInput = z.object({
  agent: HandleRef,
  action: z.enum(['block', 'unblock'], { error: 'block or unblock' }).default('block'),
});
export const DmBlockOutput = z.object({ agent: z.string(), blocked: z.boolean(), changed: z.boolean() });

// Events: who wrote to whom and when, never what.
export const DmSent = defineEvent(
  'lore.dms.message.sent',
  z.object({
    messageId: z.string(),
    conversationId: z.string(),
    fromId: z.string(),
    fromHandle: z.string(),
    toId: z.string(),
    toHandle: z.string(),
  }),
);
