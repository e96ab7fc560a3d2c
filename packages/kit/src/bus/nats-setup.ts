import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** Creates Lore's event stream, or brings an existing one to these settings. */
export async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  subjects: string[],
  duplicateWindowMs: number,
  replicas: number,
) {
  const settings = { subjects, duplicate_window: nanos(duplicateWindowMs), num_replicas: replicas };
  try {
    await jsm.streams.info(name);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) {
      await jsm.streams.add({ name, storage: StorageType.File, ...settings });
      return;
    }
    throw err;
  }
  await jsm.streams.update(name, settings);
}

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
