import type { RpcDefinition, RpcParsedRequest, RpcReply, RpcReplyInput, RpcRequest } from '@lore/schema/rpc';
import { firstIssue } from './typed.js';
import { BusRemoteError, type EventBus, type Subscription } from './types.js';

/** A typed request's handler: the request parsed with its schema, and the request's headers. */
export type RpcHandler<R extends RpcDefinition> = (
  request: RpcParsedRequest<R>,
  headers: Record<string, string>,
) => Promise<RpcReplyInput<R>>;

/**
 * Asks `rpc` and returns its reply parsed with the reply schema. A reply that does not match
 * rejects naming the field, as a 502 from the answering service would; errors of the bus
 * (`BusTimeoutError`, `BusNoResponderError`, `BusRemoteError`) pass through.
 */
export async function call<R extends RpcDefinition, B extends Pick<EventBus, 'request'>>(
  bus: B,
  rpc: R,
  request: RpcRequest<R>,
  options?: Parameters<B['request']>[2],
): Promise<RpcReply<R>> {
  const raw = await bus.request(rpc.subject, request, options);
  const parsed = rpc.reply.safeParse(raw);
  if (!parsed.success)
    throw new BusRemoteError(
      `${rpc.subject} answered out of contract: ${firstIssue(parsed.error, 'reply')}`,
      502,
    );
  return parsed.data as RpcReply<R>;
}

/**
 * Answers `rpc`: each request is parsed with the request schema before the handler sees it; one
 * that does not match is refused with a 400 naming the field (the asker gets it as a
 * `BusRemoteError`), and the handler never runs.
 */
export function answer<R extends RpcDefinition>(
  bus: Pick<EventBus, 'reply'>,
  rpc: R,
  handler: RpcHandler<R>,
): Promise<Subscription> {
  return bus.reply(rpc.subject, async (payload, headers) => {
    const parsed = rpc.request.safeParse(payload);
    if (!parsed.success) throw new BusRemoteError(firstIssue(parsed.error, 'request'), 400);
    return handler(parsed.data as RpcParsedRequest<R>, headers);
  });
}
