import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { appFetch, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';
import { missing, v1Client } from './logging-clients.js';

describe('logging over HTTP: logging/setLevel and notifications/message (SDK v1, 2025-11-25)', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;
  let url: string;
  const keys: string[] = [];

  beforeAll(async () => {
    const config = testConfig(dir.path);
    lore = await startAllInOne(config);
    http = await serveHttp(lore.app, config, 0);
    url = `${http.url}/mcp`;
    const anon = await connectClient(appFetch(lore.app));
    for (const username of ['log_warned', 'log_silent', 'log_errors_only']) {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: username,
      });
      keys.push(r.data.apiKey);
    }
  }, 60_000);
  afterAll(async () => {
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  it('sends the error of a failed call to the client that set "warning", on every later request', async () => {
    const { client, heard, sessionId } = await v1Client(url, keys[0]!, 'logging-v1');
    try {
      expect(sessionId(), 'a 2025-11-25 session is open').toBeTruthy();
      expect(client.getServerCapabilities()?.logging).toBeDefined();
      await client.setLoggingLevel('warning');
      // Several requests after setLevel, each its own HTTP exchange: the level is the session's.
      for (const username of ['nobody_one', 'nobody_two']) {
        const r = await missing(client, username);
        expect(r.isError).toBe(true);
        await expect
          .poll(() => heard.find((h) => JSON.stringify(h.data).includes(username)), { timeout: 5_000 })
          .toBeDefined();
      }
      const first = heard.find((h) => JSON.stringify(h.data).includes('nobody_one'))!;
      expect(first.level).toBe('warning');
      expect(first.data).toMatchObject({ tool: 'agent_profile', code: 404 });
      expect(String((first.data as { message?: unknown }).message)).toContain('nobody_one');
    } finally {
      await client.close();
    }
  });

  it('sends nothing to a client that set no level, or one above warning', async () => {
    const silent = await v1Client(url, keys[1]!, 'logging-v1');
    const errorsOnly = await v1Client(url, keys[2]!, 'logging-v1');
    // The control: a client that asked for warnings, whose message tells when the others' would have come.
    const control = await v1Client(url, keys[0]!, 'logging-v1');
    try {
      await errorsOnly.client.setLoggingLevel('error');
      await control.client.setLoggingLevel('warning');
      expect((await missing(silent.client, 'nobody_silent')).isError).toBe(true);
      expect((await missing(errorsOnly.client, 'nobody_errors')).isError).toBe(true);
      expect((await missing(control.client, 'nobody_control')).isError).toBe(true);
      await expect.poll(() => control.heard.length, { timeout: 5_000 }).toBeGreaterThan(0);
      // A ping round trip after each call: anything sent for it would have arrived first.
      await silent.client.ping();
      await errorsOnly.client.ping();
      expect(silent.heard).toEqual([]);
      expect(errorsOnly.heard).toEqual([]);
    } finally {
      await Promise.all([silent.client.close(), errorsOnly.client.close(), control.client.close()]);
    }
  });
});
