import type { NetworkDirectory } from '../network/directory.js';
import {
  REQUEST_SIGNATURE_HEADER,
  RequestSigner,
  RequestVerifier,
  SIGNED_REQUESTS,
  signedSubject,
  UnsignedRequestError,
} from '../network/request-signing.js';
import type { NodeIdentity } from '../node.js';
import { listenTyped, subscribeTyped } from './typed.js';
import {
  BusNoResponderError,
  type EventBus,
  type RequestHandler,
  type RequestOptions,
  type Subscription,
} from './types.js';

/** The subject a node's own replica of a responder also answers on. */
export const nodeSubject = (subject: string, node: string) => `${subject}.node.${node}`;

export interface NodeRequestOptions extends RequestOptions {
  /** Ask this node's responder only (no fallback): for data that lives on that node. */
  node?: string;
}

/** A bus whose requests can be aimed at one node. */
export type NodeLocalBus = EventBus & {
  readonly nodeId: string;
  request(subject: string, payload: unknown, options?: NodeRequestOptions): Promise<unknown>;
};

/**
 * Request/reply with node locality. Every node of a network answers on the same request
 * subjects, but most answers are about data held by one node (an API key, an agent's
 * knowledge): a plain request would reach any node's replica. Through this view a responder
 * also answers on `<subject>.node.<nodeId>`, and a request goes to this node's replicas first,
 * falling back to any replica when this node has none (services run apart with their own node
 * ids). `{ node }` aims a request at one node. Durable consumers are named per node.
 *
 * On NATS, the requests in `SIGNED_REQUESTS` (deciding a query, retrieving passages, evaluating
 * the gate, verifying a key) go out signed with `node`'s key, and their handlers refuse any
 * request that this node's key did not sign (network/request-signing.ts). Without `node` such a
 * request goes unsigned and such a handler refuses everything. An in-process bus has nobody
 * outside the process to fear: nothing is signed or checked there.
 */
export function nodeLocalBus(
  bus: EventBus,
  nodeId: string,
  keys: { node?: NodeIdentity | undefined; directory?: NetworkDirectory | undefined } = {},
): NodeLocalBus {
  if ((bus as Partial<NodeLocalBus>).nodeId === nodeId) return bus as NodeLocalBus;
  const signing = bus.kind === 'nats';
  const { node, directory } = keys;
  const signer = signing && node ? new RequestSigner(node) : undefined;
  const verifier =
    signing && node
      ? new RequestVerifier(node, directory && ((fresh) => directory.nodeKeys(node.id, { fresh })))
      : undefined;
  const checked = (subject: string, handler: RequestHandler): RequestHandler => {
    if (!signing || !SIGNED_REQUESTS.has(subject)) return handler;
    return async (payload, headers) => {
      const check = verifier
        ? await verifier.check(subject, payload, headers[REQUEST_SIGNATURE_HEADER])
        : { ok: false as const, reason: 'this process has no node key to check it with' };
      if (!check.ok) throw new UnsignedRequestError(subject, check.reason);
      return handler(payload, headers);
    };
  };
  const signed = (subject: string, payload: unknown, options: RequestOptions): RequestOptions =>
    signer && SIGNED_REQUESTS.has(signedSubject(subject))
      ? {
          ...options,
          headers: { ...options.headers, [REQUEST_SIGNATURE_HEADER]: signer.sign(subject, payload) },
        }
      : options;
  const local: NodeLocalBus = {
    kind: bus.kind,
    nodeId,
    drops: bus.drops,
    publish: (event) => bus.publish(event),
    // Each node keeps its own state, so each node needs every event: durable consumers are
    // per node (replicas of one node still share theirs).
    subscribe: (options, handler) =>
      bus.subscribe(
        options.consumer.endsWith(nodeId)
          ? options
          : { ...options, consumer: `${options.consumer}-${nodeId}` },
        handler,
      ),
    on: (event, options, handler) => subscribeTyped(local, event, options, handler, bus.drops),
    listen: (subject, handler) => bus.listen(subject, handler),
    listenTo: (event, listener, handler) => listenTyped(bus, event, listener, handler, bus.drops),
    ping: () => bus.ping(),
    close: () => bus.close(),
    async reply(subject: string, handler: RequestHandler): Promise<Subscription> {
      const guarded = checked(subject, handler);
      const subs = [
        await bus.reply(subject, guarded),
        await bus.reply(nodeSubject(subject, nodeId), guarded),
      ];
      return { close: async () => void (await Promise.all(subs.map((s) => s.close()))) };
    },
    async request(subject: string, payload: unknown, options: NodeRequestOptions = {}): Promise<unknown> {
      const { node: target, ...rest } = options;
      const withSignature = signed(subject, payload, rest);
      if (target) return bus.request(nodeSubject(subject, target), payload, withSignature);
      try {
        return await bus.request(nodeSubject(subject, nodeId), payload, withSignature);
      } catch (err) {
        if (!(err instanceof BusNoResponderError)) throw err;
        return bus.request(subject, payload, withSignature);
      }
    },
  };
  return local;
}
