import {
  AckPolicy,
  type ConsumerUpdateConfig,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** `nats://a:4222,nats://b:4222` (or one URL) as the client's server list. */
export function natsServers(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Durable names may not contain `.`, `*`, `>`, slashes or whitespace. */
export function durableName(consumer: string): string {
  return consumer.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Server API code: a consumer with that name exists with another config (create-only action). */
const CONSUMER_ALREADY_EXISTS = 10148;
const ACK_WAIT_MS = 30_000;

/** Creates a durable consumer of the stream, or updates an existing one in place (keeping its position). */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  subjects: string[],
  maxDeliver: number,
) {
  const updatable: Partial<ConsumerUpdateConfig> = {
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: maxDeliver,
    // filter_subjects needs server 2.10; a single filter works on older servers too.
    ...(subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects }),
  };
  try {
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      // A new consumer sees the stream's history; an existing durable keeps its own position.
      deliver_policy: DeliverPolicy.All,
      ...updatable,
    });
  } catch (err) {
    // The durable exists with other settings (subjects changed in a deploy): update it in place.
    if (!(err instanceof JetStreamApiError) || err.code !== CONSUMER_ALREADY_EXISTS) throw err;
    await jsm.consumers.update(stream, durable, updatable);
  }
}
