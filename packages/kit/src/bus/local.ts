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
 * Request/reply with node locality. Every node of a network answers on the same `rpc.*`
 * subjects, but most answers are about data held by one node (an API key, an agent's
 * knowledge): a plain request would reach any node's replica. Through this view a responder
 * also answers on `<subject>.node.<nodeId>`, and a request goes to this node's replicas first,
 * falling back to any replica when this node has none (services run apart with their own node
 * ids). `{ node }` aims a request at one node. Durable consumers are named per node.
 */
export function nodeLocalBus(bus: EventBus, nodeId: string): NodeLocalBus {
  if ((bus as Partial<NodeLocalBus>).nodeId === nodeId) return bus as NodeLocalBus;
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
      const subs = [
        await bus.reply(subject, handler),
        await bus.reply(nodeSubject(subject, nodeId), handler),
      ];
      return { close: async () => void (await Promise.all(subs.map((s) => s.close()))) };
    },
    async request(subject: string, payload: unknown, options: NodeRequestOptions = {}): Promise<unknown> {
      const { node, ...rest } = options;
      if (node) return bus.request(nodeSubject(subject, node), payload, rest);
      try {
        return await bus.request(nodeSubject(subject, nodeId), payload, rest);
      } catch (err) {
        if (!(err instanceof BusNoResponderError)) throw err;
        return bus.request(subject, payload, rest);
      }
    },
  };
  return local;
}
