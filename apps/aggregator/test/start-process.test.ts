/**
 * `lore start` as a process (tsx over the sources): what it prints and that it serves it. The
 * all-in-one in this process is apps/aggregator/test/all-in-one.test.ts; this file is in
 * `pnpm test:slow` (vitest.tiers.ts) because it starts Lore as a process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient, ok, scaled, tempDir } from '@lore/kit/testing';
import { describe, expect, it } from 'vitest';

describe('`lore start` as a process', () => {
  it('prints the endpoint, the owner key and client configs, and serves them', async () => {
    const dir = tempDir();
    const main = join(import.meta.dirname, '../src/main.ts');
    const tsx = join(import.meta.dirname, '../node_modules/.bin/tsx');
    const child = spawn(existsSync(tsx) ? tsx : 'tsx', ['--conditions=development', main, 'start'], {
      env: { ...process.env, LORE_DATA_DIR: dir.path, LORE_PORT: '0', LORE_LOG_LEVEL: 'warn', NATS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stderr.on('data', (d) => {
        out += d;
      });
      await expect
        .poll(() => /Lore is running at (\S+)/.test(out), { timeout: scaled(60_000), interval: 100 })
        .toBe(true);
      await expect.poll(() => out.includes('configuration (stdio'), { timeout: scaled(5_000) }).toBe(true);
      const endpoint = /Lore is running at (\S+)/.exec(out)![1]!;
      const key = readFileSync(join(dir.path, 'owner.key'), 'utf8').trim();
      expect(out).toContain(key);
      expect(out).toContain('"Authorization": "Bearer ');
      const client = await connectClient(undefined, { url: endpoint, key });
      const r = await ok<{ agent: { username: string } }>(client, 'agent_profile', { username: 'owner' });
      expect(r.data.agent.username).toBe('owner');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      dir.cleanup();
    }
  });
});
