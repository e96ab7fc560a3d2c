import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { appFetch, connectClient, ok, tempDir, testConfig, testDeps } from '@lore/kit/testing';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Distributed, startDistributed } from '../src/index.js';
import { type Heard, missing, v1Client } from './logging-clients.js';

const mentions = (heard: Heard[], word: string) => heard.filter((h) => JSON.stringify(h.data).includes(word));

/**
 * The users service in its own HTTP server, reached by the distributed aggregator only over MCP:
 * its warning about a failed call is the upstream's `notifications/message`, which the aggregator
 * forwards to the client whose call it concerns, at or above the level that client chose.
 */
describe('logging through the distributed aggregator: upstream warnings follow the caller’s level (SDK v1, 2025-11-25)', () => {
  const dir = tempDir();
  let usersEnv: ReturnType<typeof testDeps>;
  let users: Awaited<ReturnType<typeof createUsersService>>;
  let usersHttp: HttpServerHandle;
  let agg: Distributed;
  let front: HttpServerHandle;
  let url: string;
  const keys: string[] = [];

  beforeAll(async () => {
    usersEnv = testDeps();
    users = await createUsersService(usersEnv.deps);
    await users.start();
    usersHttp = await serveHttp(users.app, usersEnv.deps.config, 0);
    const anon = await connectClient(appFetch(users.app));
    for (const username of ['dlog_warned', 'dlog_silent', 'dlog_errors_only']) {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: username,
      });
      keys.push(r.data.apiKey);
    }
    await anon.close();
    const config = testConfig(dir.path);
    agg = await startDistributed(config, {
      upstreams: [
        {
          name: 'users',
          url: `${usersHttp.url}/mcp`,
          kind: 'lore',
          forwardAuthorization: false,
          timeoutMs: 20_000,
        },
      ],
    });
    front = await serveHttp(agg.app, config, 0);
    url = `${front.url}/mcp`;
  }, 60_000);
  afterAll(async () => {
    await front?.close();
    await agg?.close();
    await usersHttp?.close();
    await users?.stop();
    await usersEnv?.cleanup();
    dir.cleanup();
  });

  it('forwards the upstream’s warning to the client that set "warning", and to no one else', async () => {
    const warned = await v1Client(url, keys[0]!, 'logging-v1-distributed');
    const silent = await v1Client(url, keys[1]!, 'logging-v1-distributed');
    const errorsOnly = await v1Client(url, keys[2]!, 'logging-v1-distributed');
    try {
      for (const c of [warned, silent, errorsOnly])
        expect(c.sessionId(), 'a 2025-11-25 session').toBeTruthy();
      expect(warned.client.getServerCapabilities()?.logging).toBeDefined();
      await warned.client.setLoggingLevel('warning');
      await errorsOnly.client.setLoggingLevel('error');
      // All three calls at once over the same upstream connection: each warning must find its own caller.
      const results = await Promise.all([
        missing(warned.client, 'nobody_warned'),
        missing(silent.client, 'nobody_silent'),
        missing(errorsOnly.client, 'nobody_errors'),
      ]);
      for (const r of results) expect(r.isError).toBe(true);
      await expect.poll(() => mentions(warned.heard, 'nobody_warned').length, { timeout: 5_000 }).toBe(1);
      const warning = mentions(warned.heard, 'nobody_warned')[0]!;
      expect(warning.level).toBe('warning');
      expect(warning.data).toMatchObject({ tool: 'agent_profile', code: 404 });
      expect(String((warning.data as { message?: unknown }).message)).toContain('nobody_warned');
      // Only its own call's warning: not the other callers'.
      expect(warned.heard.every((h) => JSON.stringify(h.data).includes('nobody_warned'))).toBe(true);
      // A ping round trip after each call: anything sent for it would have arrived first.
      await silent.client.ping();
      await errorsOnly.client.ping();
      expect(silent.heard, 'a client that set no level hears nothing').toEqual([]);
      expect(errorsOnly.heard, 'a client that set "error" does not hear a warning').toEqual([]);
    } finally {
      await Promise.all([warned.client.close(), silent.client.close(), errorsOnly.client.close()]);
    }
  }, 30_000);

  it('keeps each session’s level across requests: later failures reach "warning", still not the others', async () => {
    const warned = await v1Client(url, keys[0]!, 'logging-v1-distributed');
    const silent = await v1Client(url, keys[1]!, 'logging-v1-distributed');
    try {
      await warned.client.setLoggingLevel('warning');
      for (const username of ['nobody_later_one', 'nobody_later_two']) {
        expect((await missing(warned.client, username)).isError).toBe(true);
        expect((await missing(silent.client, `${username}_silent`)).isError).toBe(true);
        await expect.poll(() => mentions(warned.heard, username).length, { timeout: 5_000 }).toBe(1);
      }
      await silent.client.ping();
      expect(silent.heard).toEqual([]);
    } finally {
      await Promise.all([warned.client.close(), silent.client.close()]);
    }
  }, 30_000);
});
