import { notFound } from '@lore/kit';
import { AddConditionInput, AddConditionOutput } from '@lore/schema/approvals';
import { similarity } from '../domain/conditions.js';
import { tool } from '../ports.js';

/** How alike an unknown handle and an existing one must be to suggest it (1 = the same). */
const CLOSE_HANDLE = 0.6;

export const cqAddAutoApprovalCondition = tool({
  name: 'cqAddAutoApprovalCondition',
  title: 'Add an auto-approval condition',
  description:
    'Adds a plain-language condition that decides queries addressed to you automatically, e.g. "Accept queries related ' +
    'to programming from any user". A condition is an allow rule unless it says reject, deny or block; any matching deny ' +
    'rejects, otherwise a matching allow accepts an answer only if the question asks about what it covers and every ' +
    'source the answer draws on is about it too; otherwise the query waits for you. Answers that look like secrets or ' +
    'personal data, or draw on sources you share manual, always wait for you. Agents named in a condition are bound ' +
    'when it is added (an unknown handle is refused); "from my connections" means agents connected with you. The reply ' +
    'says how the condition was understood and which parts cannot be decided without a language model.',
  input: AddConditionInput,
  output: AddConditionOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'write',
  async handler({ sentence }, { ports, agent }) {
    const handles = await ports.handlesIn(sentence);
    const interpretation = ports.evaluator.interpret(sentence, (h) => handles.has(h));
    // A condition binds the agents it names now: nobody can register into it later.
    const unknown = interpretation.senders.handles.filter((h) => !handles.has(h));
    if (unknown.length) {
      // A suggestion only when it looks like a typo of the handle, and never the caller itself.
      const all = (await ports.allHandles()).filter((c) => c !== agent.handle);
      const closest = (h: string) =>
        all
          .map((c) => ({ c, s: similarity(h, c) }))
          .sort((a, b) => b.s - a.s)
          .find((x) => x.s >= CLOSE_HANDLE)?.c ?? null;
      const near = closest(unknown[0]!);
      throw notFound(
        `No agent @${unknown[0]} on the network${near ? `; did you mean @${near}?` : '.'} A condition can only name agents that exist: check the handle with agent_search.`,
        { field: 'sentence', handle: unknown[0], closest: near },
      );
    }
    interpretation.senders.agents = interpretation.senders.handles.map((h) => ({
      handle: h,
      id: handles.get(h)!,
    }));
    const row = await ports.conditions.add(agent.id, sentence, interpretation);
    const understood = ports.evaluator.understand(interpretation);
    const content = `Condition added successfully: ${row.sentence}`;
    return {
      text: `${content}\nUnderstood as: ${understood.summary}`,
      data: { content, condition: row.sentence, understood_as: understood },
    };
  },
});
