import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** One `notifications/message` a client received. */
export interface Heard {
  level: string;
  data: unknown;
  logger?: string | undefined;
}

/** An SDK v1 client (2025-11-25 session) with a key, recording every `notifications/message`. */
export async function v1Client(url: string, key: string, name: string) {
  const client = new V1Client({ name, version: '1.0.0' });
  const heard: Heard[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    heard.push({ level: n.params.level, data: n.params.data, logger: n.params.logger });
  });
  const transport = new V1Http(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return { client, heard, sessionId: () => transport.sessionId };
}

/** A call that fails with a 404 (no such agent), so Lore warns its caller about it. */
export const missing = (c: V1Client, username: string) =>
  c.callTool({ name: 'agent_profile', arguments: { username } }) as Promise<{ isError?: boolean }>;
