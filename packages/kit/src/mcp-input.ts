import {
  type ElicitInputParams,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallInfo, ElicitationAnswer, ElicitationPort } from './mcp.js';
import type { SamplingPort } from './textgen-port.js';

/**
 * What a tool asks of the client in the middle of a call: progress notifications, the client's
 * model (sampling) and the client's user (elicitation), the last two through input requests.
 */

/**
 * Thrown by a sampling or elicitation port: the call ends with an input request, and the
 * client's answer comes back with the retried call (2026-07-28), or the SDK asks the client and
 * re-enters the handler (a 2025-11-25 session).
 */
export class InputRequiredSignal extends Error {
  constructor(
    readonly request: Parameters<SamplingPort['createMessage']>[0] | undefined,
    private readonly input: { key: string; request: InputRequest } = {
      key: SAMPLING_KEY,
      request: inputRequired.createMessage(request as never),
    },
  ) {
    super(`input required: ${input.key === SAMPLING_KEY ? 'sampling' : 'elicitation'}`);
    this.name = 'InputRequiredSignal';
  }

  /** An elicitation of the client's user. */
  static elicitation(params: ElicitInputParams): InputRequiredSignal {
    return new InputRequiredSignal(undefined, {
      key: ELICITATION_KEY,
      request: inputRequired.elicit(params),
    });
  }

  /** The tools/call result that asks the client, and carries the answer back on retry. */
  result(): InputRequiredResult {
    return inputRequired({ inputRequests: { [this.input.key]: this.input.request } });
  }
}

export const SAMPLING_KEY = 'lore_sampling';
export const ELICITATION_KEY = 'lore_elicitation';

export function progressReporter(ctx: ServerContext): CallInfo['progress'] {
  const token = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  if (token === undefined) return async () => {};
  return async (progress, total, message) => {
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message ? { message } : {}),
      },
    });
  };
}

/**
 * The client's model, when it declared sampling. Both eras go through an input request: on
 * 2026-07-28 the client answers it and retries; on a 2025-11-25 session the SDK's shim asks
 * the client and re-enters the handler. Stateless 2025 requests have no way back: no port.
 */
export function samplingPort(server: Server, ctx: ServerContext): SamplingPort | undefined {
  if (!server.getClientCapabilities()?.sampling) return undefined;
  const answered = ctx.mcpReq.inputResponses?.[SAMPLING_KEY];
  return {
    async createMessage(params) {
      if (answered !== undefined) return samplingText(answered);
      throw new InputRequiredSignal(params);
    },
  };
}

/** The client's user, when the client declared elicitation: asked through an input request, as sampling is. */
export function elicitationPort(server: Server, ctx: ServerContext): ElicitationPort | undefined {
  if (!server.getClientCapabilities()?.elicitation) return undefined;
  const answered = ctx.mcpReq.inputResponses?.[ELICITATION_KEY] as ElicitationAnswer | undefined;
  return {
    async elicit(params) {
      if (answered !== undefined) return answered;
      throw InputRequiredSignal.elicitation(params);
    },
  };
}

function samplingText(result: unknown): string {
  const content = (result as { content?: unknown })?.content;
  const blocks = Array.isArray(content) ? content : [content];
  const text = blocks
    .map((b) =>
      b && typeof b === 'object' && (b as { type?: string }).type === 'text'
        ? (b as { text: string }).text
        : '',
    )
    .join('');
  if (!text) throw new Error('the client returned no text from sampling');
  return text;
}
