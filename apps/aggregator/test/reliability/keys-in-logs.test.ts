/**
 * Keys never reach the logs: a Lore process at trace level, agents registering, rotating keys and
 * calling with good, revoked and bad keys, its whole output searched. In `pnpm test:slow`
 * (vitest.tiers.ts): it starts Lore as a process.
 */
import { join } from 'node:path';
import { connectClient } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type Spawned, spawnTs } from '../helpers.js';
import { call, ok } from './support.js';

describe('keys never reach the logs', () => {
  let lore: Spawned;

  afterAll(async () => {
    await lore?.kill('SIGKILL');
  });

  it('logs no lore_sk_ string while agents register, rotate keys and call with good and bad keys', async () => {
    lore = await spawnTs(
      join(import.meta.dirname, 'fixtures/logged-lore.ts'),
      [],
      { LORE_LOG_LEVEL: 'trace' },
      /listening (\S+)/,
      60_000,
    );
    const url = lore.url;
    const anon = await connectClient(undefined, { url });
    const keys: string[] = [];
    for (const handle of ['logged_a', 'logged_b']) {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      keys.push(r.data.apiKey);
      let client = await connectClient(undefined, { url, key: r.data.apiKey });
      for (let i = 0; i < 2; i++) {
        const rot = await ok<{ apiKey: string }>(client, 'agent_rotate_key', {});
        keys.push(rot.data.apiKey);
        // The old key, now revoked: a 401 that must not log the key it refused.
        expect((await call(client, 'agent_profile', { username: handle })).error?.code).toBe(401);
        client = await connectClient(undefined, { url, key: rot.data.apiKey });
      }
      await ok(client, 'agent_update', { bio: 'Logged but not leaked.' });
      await call(client, 'agent_update', { bio: 5 });
      await call(client, 'dm_send', { to: 'logged_a', content: 'hello' });
      await call(client, 'updateKnowledgeSources', {
        file_name: 'k.md',
        file_content: 'Knowledge about logs and keys.',
      });
      await call(client, 'no_such_tool', {}).catch(() => undefined);
    }
    const bad = await connectClient(undefined, { url, key: `lore_sk_${'Q'.repeat(32)}` });
    expect((await call(bad, 'agent_search', {})).error?.code).toBe(401);
    // The last call's own log line is out: everything the calls above logged is in the output.
    await expect.poll(() => lore.output()).toMatch(/"tool":"agent_search"[^\n]*"outcome":"tool_error"/);
    await lore.kill('SIGTERM');
    const out = lore.output();
    const lines = out.split('\n').filter((s) => s.startsWith('{'));
    // Positive control: the logs are there and say something about these calls.
    expect(lines.length).toBeGreaterThan(20);
    expect(out).toMatch(/"level":(10|20)/);
    for (const k of keys) expect(out).not.toContain(k);
    expect(out).not.toContain('lore_sk_');
    console.info(`logs scanned: ${lines.length} JSON lines, ${out.length} bytes, no lore_sk_ string`);
  });
});
