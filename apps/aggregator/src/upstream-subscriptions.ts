import type { Client, McpSubscription } from '@modelcontextprotocol/client';

interface Held {
  /** How many of the aggregator's clients hold it. */
  count: number;
  /** The upstream's answer: its listen stream on a 2026-07-28 connection, nothing on a 2025-11-25 one. */
  listen: Promise<McpSubscription | undefined>;
}

/**
 * The resource subscriptions one upstream holds for the aggregator's clients, by URI: the
 * upstream is asked once per URI and released when the last client unsubscribes. On a
 * 2025-11-25 connection that is `resources/subscribe`; on a 2026-07-28 one a
 * `subscriptions/listen` stream for the URI, whose updates reach the client's
 * `notifications/resources/updated` handler as they would on the older connection.
 */
export class UpstreamSubscriptions {
  private readonly held = new Map<string, Held>();

  async subscribe(client: Client, uri: string): Promise<void> {
    const h = this.held.get(uri);
    if (h) {
      h.count++;
      return;
    }
    const entry: Held = { count: 1, listen: hold(client, uri) };
    this.held.set(uri, entry);
    try {
      await entry.listen;
    } catch (err) {
      this.held.delete(uri);
      throw err;
    }
  }

  async unsubscribe(client: Client, uri: string): Promise<void> {
    const h = this.held.get(uri);
    if (!h || --h.count > 0) return;
    this.held.delete(uri);
    const listen = await h.listen.catch(() => undefined);
    if (client.getProtocolEra() === 'modern') await listen?.close();
    else await client.unsubscribeResource({ uri });
  }

  /** After a reconnect: ask the new connection for every subscription still held. */
  renew(client: Client): void {
    for (const [uri, h] of this.held) {
      h.listen = hold(client, uri);
      h.listen.catch(() => {});
    }
  }

  /** Closing the upstream: the streams end with it. */
  clear(): void {
    for (const h of this.held.values()) void h.listen.then((l) => l?.close()).catch(() => {});
    this.held.clear();
  }
}

async function hold(client: Client, uri: string): Promise<McpSubscription | undefined> {
  if (client.getProtocolEra() === 'modern') return client.listen({ resourceSubscriptions: [uri] });
  await client.subscribeResource({ uri });
  return undefined;
}
