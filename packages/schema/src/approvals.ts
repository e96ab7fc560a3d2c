import { z } from 'zod';
import { ConditionCheck } from './queries.js';
import { defineRpc } from './rpc.js';

const Sentence = z
  .string()
  .trim()
  .min(3, { error: 'between 3 and 500 characters' })
  .max(500, { error: 'between 3 and 500 characters' });

/** How a condition was understood when it was added. */
export const ConditionUnderstanding = z.object({
  effect: z.enum(['allow', 'deny']),
  judged_by: z.enum(['interpreter', 'model']),
  senders: z.string().describe('Which askers it covers, in words.'),
  topics: z.string().describe('Which questions it covers, in words.'),
  undecidable: z
    .array(z.string())
    .describe('Parts the built-in interpreter cannot decide: queries they would cover stay pending.'),
  summary: z.string(),
});
export type ConditionUnderstanding = z.infer<typeof ConditionUnderstanding>;

export const AddConditionInput = z.object({
  sentence: Sentence.describe(
    'The condition in plain language, e.g. "Accept queries related to programming from any user".',
  ),
});
export const AddConditionOutput = z.object({
  content: z.string(),
  condition: z.string(),
  understood_as: ConditionUnderstanding,
});

export const RemoveConditionInput = z.object({
  condition: Sentence.describe('The exact text of a condition, as cqListAutoApprovalConditions shows it.'),
});
export const RemoveConditionOutput = z.object({ content: z.string(), condition: z.string() });

export const ListConditionsInput = z.object({});
export const ListConditionsOutput = z.object({
  conditions: z.array(z.string()),
  details: z.array(
    z.object({ condition: z.string(), added_at: z.string(), understood_as: ConditionUnderstanding }),
  ),
});

// ---- request/reply (answered by the approvals service of the recipient's node) ---------------

/** The queries service asks what a recipient's conditions say about a drafted query. */
export const EvaluateQueryRequest = z.object({
  queryId: z.string(),
  recipient: z.object({ id: z.string(), handle: z.string() }),
  asker: z.object({
    id: z.string(),
    handle: z.string(),
    profile: z
      .object({
        displayName: z.string(),
        bio: z.string(),
        skills: z.array(z.string()),
        interests: z.array(z.string()),
      })
      .nullable(),
  }),
  question: z.string(),
  draft: z.object({
    text: z.string(),
    sources: z.array(z.string()),
    excerpts: z.array(z.string()),
    /** Each cited excerpt with its source (absent from older producers: then every excerpt is looked for in every cited source). */
    citations: z.array(z.object({ source: z.string(), excerpt: z.string() })).default([]),
  }),
});
export type EvaluateQueryRequest = z.infer<typeof EvaluateQueryRequest>;

export { ConditionCheck };
/**
 * `held`: the gate keeps the answer for the owner whatever the conditions say (it looks like a
 * secret or personal data, it draws on a `manual` source, or a source falls outside what the
 * matching condition covers); the query waits like a pending one, with `reason` shown to the
 * owner. `pending`: no condition decided it.
 */
export const EvaluateQueryReply = z.object({
  outcome: z.enum(['accepted', 'rejected', 'pending', 'held']),
  decidedBy: z
    .string()
    .describe(
      'condition:interpreter, condition:model, gate:sensitive, gate:manual-source, gate:scope, or none',
    ),
  condition: z.string().nullable(),
  reason: z.string(),
  checks: z.array(ConditionCheck),
});
export type EvaluateQueryReply = z.infer<typeof EvaluateQueryReply>;

export const ApprovalsRpc = {
  evaluate: defineRpc('rpc.approvals.evaluate', EvaluateQueryRequest, EvaluateQueryReply),
};
