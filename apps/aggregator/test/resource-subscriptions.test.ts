import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { connectClient, tempDir, testConfig } from '@lore/kit/testing';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, type McpHttpHandler, Server } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributed, UpstreamConfig } from '../src/index.js';

const WATCHED = 'test://watched-resource';
const OTHER = 'test://other-resource';

/** An external MCP server (SDK v2, no Lore code) with two resources a client may subscribe to. */
function externalServer(): { app: Hono; handler: McpHttpHandler; subscribed: () => number } {
  const handler = createMcpHandler(() => {
    const server = new Server(
      { name: 'watched', version: '1.0.0' },
      { capabilities: { tools: {}, resources: { subscribe: true, listChanged: true } } },
    );
    server.setRequestHandler('tools/list', async () => ({ tools: [] }));
    server.setRequestHandler('resources/list', async () => ({
      resources: [
        { uri: WATCHED, name: 'watched', mimeType: 'text/plain' },
        { uri: OTHER, name: 'other', mimeType: 'text/plain' },
      ],
    }));
    server.setRequestHandler('resources/read', async (req) => ({
      contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: `contents of ${req.params.uri}` }],
    }));
    return server;
  });
  const app = new Hono();
  app.all('/mcp', (c) => handler.fetch(c.req.raw));
  const bus = handler.bus as unknown as { listenerCount: number };
  return { app, handler, subscribed: () => bus.listenerCount };
}

describe('resource subscriptions through the aggregator', () => {
  const dir = tempDir();
  const config = testConfig(dir.path);
  let upstream: ReturnType<typeof externalServer>;
  let upstreamHttp: HttpServerHandle;
  let agg: Awaited<ReturnType<typeof startDistributed>>;
  let front: HttpServerHandle;

  beforeAll(async () => {
    upstream = externalServer();
    upstreamHttp = await serveHttp(upstream.app, config, 0);
    agg = await startDistributed(config, {
      upstreams: [UpstreamConfig.parse({ name: 'watched', url: `${upstreamHttp.url}/mcp` })],
    });
    front = await serveHttp(agg.app, config, 0);
  });
  afterAll(async () => {
    await front.close();
    await agg.close();
    await upstreamHttp.close();
    await upstream.handler.close();
    dir.cleanup();
  });

  async function session(
    key: string | null = 'lore_sk_subscriber',
  ): Promise<{ client: V1Client; transport: V1Http; updates: string[] }> {
    const client = new V1Client({ name: 'subscriber', version: '1.0.0' });
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const transport = new V1Http(new URL(`${front.url}/mcp`), {
      requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
    });
    await client.connect(transport);
    return { client, transport, updates };
  }

  it('subscribes at the upstream, passes its updates to the subscribed session only, and releases it', async () => {
    const a = await session();
    const b = await session();
    try {
      expect(a.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      await a.client.subscribeResource({ uri: WATCHED });
      // The upstream (2026-07-28) holds one listen stream for the subscription.
      await expect.poll(() => upstream.subscribed()).toBe(1);

      upstream.handler.notify.resourceUpdated(WATCHED);
      await expect.poll(() => a.updates).toEqual([WATCHED]);
      // Another session that did not subscribe hears nothing of it; after its own subscription
      // to the other resource it hears that one's update, and only that one.
      await b.client.subscribeResource({ uri: OTHER });
      await expect.poll(() => upstream.subscribed()).toBe(2);
      upstream.handler.notify.resourceUpdated(OTHER);
      await expect.poll(() => b.updates).toEqual([OTHER]);
      expect(a.updates).toEqual([WATCHED]);

      // Two sessions on one URI share one upstream subscription, released by the last one out.
      await b.client.subscribeResource({ uri: WATCHED });
      await expect.poll(() => upstream.subscribed()).toBe(2);
      await a.client.unsubscribeResource({ uri: WATCHED });
      upstream.handler.notify.resourceUpdated(WATCHED);
      await expect.poll(() => b.updates).toEqual([OTHER, WATCHED]);
      expect(a.updates).toEqual([WATCHED]);
      await b.client.unsubscribeResource({ uri: WATCHED });
      await b.client.unsubscribeResource({ uri: OTHER });
      await expect.poll(() => upstream.subscribed()).toBe(0);
    } finally {
      await a.client.close();
      await b.client.close();
    }
  }, 30_000);

  it('releases the upstream subscription when the session that held it ends without unsubscribing', async () => {
    const a = await session();
    try {
      await a.client.subscribeResource({ uri: WATCHED });
      await expect.poll(() => upstream.subscribed()).toBe(1);
      // Subscribing again changes nothing; an unsubscribe from a session that holds nothing
      // does not release another's share.
      await a.client.subscribeResource({ uri: WATCHED });
      const b = await session();
      await b.client.unsubscribeResource({ uri: WATCHED });
      await b.client.close();
      expect(upstream.subscribed()).toBe(1);
      await a.transport.terminateSession();
      await expect.poll(() => upstream.subscribed()).toBe(0);
    } finally {
      await a.client.close();
    }
  });

  it('holds nothing upstream for a client without a session (no key), which no update could reach', async () => {
    const anon = await session(null);
    try {
      expect(anon.transport.sessionId).toBeUndefined();
      for (let i = 0; i < 5; i++) await anon.client.subscribeResource({ uri: WATCHED });
      await expect.poll(() => upstream.subscribed()).toBe(0);
    } finally {
      await anon.client.close();
    }
  });

  it('subscribes at the upstream for a 2026-07-28 client listening on the aggregator, while it listens', async () => {
    const client = await connectClient(undefined, { url: `${front.url}/mcp`, key: 'lore_sk_listener' });
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const listening = await client.listen({ resourceSubscriptions: [WATCHED] });
      expect(listening.honoredFilter.resourceSubscriptions).toEqual([WATCHED]);
      await expect.poll(() => upstream.subscribed()).toBe(1);
      upstream.handler.notify.resourceUpdated(WATCHED);
      await expect.poll(() => updates).toEqual([WATCHED]);
      await listening.close();
      await expect.poll(() => upstream.subscribed()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('refuses a subscription to a resource no upstream serves, naming it', async () => {
    const a = await session();
    try {
      await expect(a.client.subscribeResource({ uri: 'test://nowhere' })).rejects.toThrow(
        /Unknown resource: test:\/\/nowhere/,
      );
      expect(upstream.subscribed()).toBe(0);
    } finally {
      await a.client.close();
    }
  });
});
