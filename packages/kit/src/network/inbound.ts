/**
 * What an event from another node must pass before it reaches this node's stream: addressed
 * here, within the peer's rate and size, an envelope of an event the link carries on that
 * subject, produced and signed by the sending node, speaking for one of that node's agents and
 * for an agent hosted here.
 */
import { type EventEnvelope, EventEnvelopeSchema } from '@lore/schema/events';
import type { PeerRate } from './announcements.js';
import type { NetworkDirectory } from './directory.js';
import { parseNetSubject } from './federation-subjects.js';
import type { CarriedEvent, Refusal, Route } from './federation-types.js';
import { verifyEnvelope } from './signing.js';

export interface InboundContext {
  /** This node's id. */
  self: string;
  /** The events the link carries, by subject. */
  carried: ReadonlyMap<string, CarriedEvent>;
  rate: PeerRate;
  maxBytes: number;
  directory: NetworkDirectory;
}

export type Admission =
  | { ok: true; envelope: EventEnvelope }
  | {
      ok: false;
      reason: Refusal;
      detail: string;
      from: string;
      retry?: boolean;
      /** The sending node has not announced itself here (yet, or since it went silent). */
      unheard?: boolean;
    };

/** Whether the message `data` on `subject` may be stored on this node's stream, and if so its envelope. */
export async function admitEnvelope(
  kind: 'ask' | 'answer',
  subject: string,
  data: Uint8Array,
  ctx: InboundContext,
): Promise<Admission> {
  const parsed = parseNetSubject(subject);
  const from = parsed?.from ?? '?';
  const refuse = (reason: Refusal, detail: string, more: { retry?: boolean; unheard?: boolean } = {}) =>
    ({ ok: false, reason, detail, from, ...more }) as const;
  if (!parsed || parsed.to !== ctx.self) return refuse('not-addressed-here', subject);
  if (!ctx.rate.take(from)) return refuse('rate-limited', `more than the peer rate from ${from}`);
  if (data.length > ctx.maxBytes) return refuse('too-large', `${data.length} bytes`);
  let envelope: EventEnvelope;
  try {
    envelope = EventEnvelopeSchema.parse(JSON.parse(new TextDecoder().decode(data))) as EventEnvelope;
  } catch {
    return refuse('unreadable', 'not an event envelope');
  }
  const carried = ctx.carried.get(envelope.subject);
  if (carried?.kind !== kind) return refuse('wrong-event', `${envelope.subject} on ${kind}`);
  // The hub vouches that `from`'s account sent it; only `from`'s own events may come that way.
  if (envelope.producer.node !== from || envelope.signature?.node !== from)
    return refuse('not-from-sender', `produced by ${envelope.producer.node}, sent by ${from}`);
  const v = await verifyEnvelope(envelope, ctx.directory);
  if (!v.ok) return refuse('bad-signature', v.reason);
  const handles = await ctx.directory.listHandles();
  const hostedHere = (agentId: string) =>
    handles.some((h) => h.agentId === agentId && h.node === ctx.self && !h.network);
  // The agent it speaks for must be one the sending node announced as its own.
  const hostedBySender = (agentId: string | undefined) =>
    handles.some((h) => h.agentId === agentId && h.node === from && h.network);
  let route: Route;
  try {
    route = carried.route(envelope.payload);
  } catch {
    return refuse('unreadable', `not a ${envelope.subject} payload`);
  }
  const sender = route.sender;
  if (!handles.some((h) => h.node === from && h.network))
    return refuse('sender-not-hosted', `${from} has not announced itself here yet`, {
      retry: true,
      unheard: true,
    });
  if (!sender || (sender.node !== undefined && sender.node !== from) || !hostedBySender(sender.id))
    return refuse('sender-not-hosted', `the agent it speaks for is not an agent of ${from}`);
  if (!route.recipients.some((r) => (r.node === undefined || r.node === ctx.self) && hostedHere(r.id)))
    return refuse('not-addressed', 'no recipient hosted here');
  return { ok: true, envelope };
}
