import type { z } from 'zod';

/**
 * A request between services: its subject, what it takes and what it answers. Declared once
 * here, beside the events; the kit's `call` and `answer` infer both sides from it, so a
 * contract type is never repeated where it is used.
 */
export interface RpcDefinition<
  S extends string = string,
  Req extends z.ZodTypeAny = z.ZodTypeAny,
  Rep extends z.ZodTypeAny = z.ZodTypeAny,
> {
  subject: S;
  request: Req;
  reply: Rep;
}

/** `rpc.<service>.<verb>`: answered by one service, asked by any. */
export const defineRpc = <S extends `rpc.${string}`, Req extends z.ZodTypeAny, Rep extends z.ZodTypeAny>(
  subject: S,
  request: Req,
  reply: Rep,
): RpcDefinition<S, Req, Rep> => ({ subject, request, reply });

/** What a caller passes (before the request schema's defaults). */
export type RpcRequest<R extends RpcDefinition> = z.input<R['request']>;
/** What a handler receives: the request parsed with its schema. */
export type RpcParsedRequest<R extends RpcDefinition> = z.infer<R['request']>;
/** What a handler returns (before the reply schema's defaults). */
export type RpcReplyInput<R extends RpcDefinition> = z.input<R['reply']>;
/** What a caller receives: the reply parsed with its schema. */
export type RpcReply<R extends RpcDefinition> = z.infer<R['reply']>;
