import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { jetstream, jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import { type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';

/**
 * Backup and restore of a JetStream stream (Lore's event stream, or a KV bucket's `KV_<name>`
 * stream) through the JetStream API, for operators without the NATS CLI. The backup is one
 * file of JSON lines: the stream's configuration, then every stored message in order (subject,
 * headers, payload in base64, original sequence and time).
 */

interface Header {
  stream: string;
  config: Partial<StreamConfig>;
  messages: number;
  backedUpAt: string;
}

interface Line {
  seq: number;
  time: string;
  subject: string;
  headers?: Array<[string, string[]]>;
  data: string;
}

/** Writes every message of `stream` to `file`; returns how many. */
export async function backupStream(nc: NatsConnection, stream: string, file: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  const lines: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    // Deleted sequences (purged keys, removed messages) leave gaps.
    const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!msg) continue;
    const headers = msg.header
      ? [...msg.header.keys()].map((k) => [k, msg.header.values(k)] as [string, string[]])
      : [];
    const line: Line = {
      seq: msg.seq,
      time: msg.time.toISOString(),
      subject: msg.subject,
      ...(headers.length ? { headers } : {}),
      data: Buffer.from(msg.data).toString('base64'),
    };
    lines.push(JSON.stringify(line));
  }
  const { name, subjects, retention, max_msgs, max_bytes, max_age, max_msgs_per_subject, max_msg_size } =
    info.config;
  const config: Partial<StreamConfig> = {
    name,
    subjects,
    retention,
    max_msgs,
    max_bytes,
    max_age,
    max_msgs_per_subject,
    max_msg_size,
    storage: info.config.storage,
    num_replicas: info.config.num_replicas,
    duplicate_window: info.config.duplicate_window,
    discard: info.config.discard,
    allow_rollup_hdrs: info.config.allow_rollup_hdrs,
    deny_delete: info.config.deny_delete,
    allow_direct: info.config.allow_direct,
  };
  const header: Header = { stream, config, messages: lines.length, backedUpAt: new Date().toISOString() };
  await writeFile(file, `${[JSON.stringify(header), ...lines].join('\n')}\n`);
  return lines.length;
}

/**
 * Creates the stream of a backup and publishes its messages again, in order, with their
 * headers (a message id keeps its duplicate detection). Refuses a stream that exists: delete it
 * first, as a restore replaces the stream rather than merging into it. Returns how many.
 */
export async function restoreStream(
  nc: NatsConnection,
  file: string,
  opts: { replicas?: number } = {},
): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  // Read after the last await before the loop: lines read meanwhile would be lost.
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let header: Header | undefined;
  let restored = 0;
  for await (const text of rl) {
    if (!text.trim()) continue;
    if (!header) {
      header = JSON.parse(text) as Header;
      if (!header.config?.name) throw new Error(`${file} is not a stream backup (no stream configuration)`);
      const exists = await jsm.streams.info(header.config.name).then(
        () => true,
        () => false,
      );
      if (exists) throw new Error(`stream ${header.config.name} exists: delete it before restoring it`);
      await jsm.streams.add({
        ...header.config,
        ...(opts.replicas ? { num_replicas: opts.replicas } : {}),
      } as StreamConfig);
      continue;
    }
    const line = JSON.parse(text) as Line;
    const h = natsHeaders();
    for (const [k, values] of line.headers ?? []) for (const v of values) h.append(k, v);
    await js.publish(line.subject, Buffer.from(line.data, 'base64'), {
      ...(line.headers?.length ? { headers: h } : {}),
    });
    restored++;
  }
  if (!header) throw new Error(`${file} is empty`);
  return restored;
}
