import { z } from 'zod';

/**
 * Every event on the bus travels in this envelope. `id` doubles as the JetStream
 * `Nats-Msg-Id`, so a re-published event is stored once and handlers can dedupe on it.
 */
export const EventEnvelopeSchema = z.object({
  id: z.string().min(1),
  subject: z.string().regex(/^lore\.[a-z_]+\.[a-z_]+\.[a-z_]+$/),
  occurredAt: z.string(),
  producer: z.object({ node: z.string(), service: z.string() }),
  payload: z.unknown(),
  /** W3C trace context of the call that caused the event, when there was one. */
  traceparent: z.string().optional(),
  /** The producing node's Ed25519 signature over the rest of the envelope. */
  signature: z.object({ node: z.string(), alg: z.literal('ed25519'), value: z.string() }).optional(),
});
export type EventEnvelope<P = unknown> = Omit<z.infer<typeof EventEnvelopeSchema>, 'payload'> & {
  payload: P;
};

export interface EventDefinition<S extends string = string, P extends z.ZodTypeAny = z.ZodTypeAny> {
  subject: S;
  payload: P;
}

export const defineEvent = <S extends string, P extends z.ZodTypeAny>(
  subject: S,
  payload: P,
): EventDefinition<S, P> => ({
  subject,
  payload,
});

export type EventPayload<E extends EventDefinition> = z.infer<E['payload']>;
