/**
 * The test tiers on a busy machine: every timeout from one setting (vitest.timing.ts), and the
 * NATS the tests use named, never guessed (tools/vitest-nats.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import startTestNats from '../../../tools/vitest-nats.js';
import { parseTimeScale, tierTimeouts, timingEnv } from '../../../vitest.timing.js';

const REPO = join(import.meta.dirname, '../../..');

interface TestConfig {
  testTimeout?: number;
  hookTimeout?: number;
  env?: Record<string, string>;
  globalSetup?: string[];
}
const configOf = async (path: string) =>
  ((await import(pathToFileURL(join(REPO, path)).href)) as { default: { test: TestConfig } }).default.test;

const projects = ['packages', 'apps'].flatMap((top) =>
  readdirSync(join(REPO, top))
    .filter((name) => existsSync(join(REPO, top, name, 'vitest.config.ts')))
    .map((name) => `${top}/${name}/vitest.config.ts`),
);

describe('timeouts: one setting, LORE_TEST_TIME_SCALE', () => {
  it('every project of `pnpm test` and both other tiers take theirs from vitest.timing.ts', async () => {
    expect(projects.length).toBeGreaterThan(10);
    for (const path of projects) {
      const test = await configOf(path);
      expect({ testTimeout: test.testTimeout, hookTimeout: test.hookTimeout }, path).toEqual(
        tierTimeouts('default'),
      );
      expect(test.env?.LORE_INGEST_TIME_LIMIT_MS, path).toBe(timingEnv().LORE_INGEST_TIME_LIMIT_MS);
    }
    const slow = await configOf('vitest.slow.config.ts');
    expect({ testTimeout: slow.testTimeout, hookTimeout: slow.hookTimeout }).toEqual(tierTimeouts('slow'));
    const faults = await configOf('apps/aggregator/test/reliability/vitest.faults.config.ts');
    expect({ testTimeout: faults.testTimeout, hookTimeout: faults.hookTimeout }).toEqual(
      tierTimeouts('faults'),
    );
    // And every tier names the tests' NATS the same way.
    for (const test of [slow, faults, await configOf('vitest.config.ts')])
      expect(test.globalSetup).toEqual(['./tools/vitest-nats.ts']);
  });

  it('scales every figure, the parse time limit included, and refuses a value that is not a factor', () => {
    expect(parseTimeScale(undefined)).toBe(1);
    expect(parseTimeScale('')).toBe(1);
    expect(parseTimeScale('2.5')).toBe(2.5);
    expect(tierTimeouts('default', 3)).toEqual({ testTimeout: 180_000, hookTimeout: 270_000 });
    expect(timingEnv(3)).toEqual({
      LORE_TEST_TIME_SCALE: '3',
      LORE_INGEST_TIME_LIMIT_MS: '90000',
      LORE_BUS_TIMEOUT_SCALE: '9',
    });
    for (const bad of ['0', '0.5', 'fast', '21', '-2'])
      expect(() => parseTimeScale(bad)).toThrow(/LORE_TEST_TIME_SCALE must be a number from 1 to 20, got/);
  });
});

describe("the tests' NATS (tools/vitest-nats.ts)", () => {
  it('without NATS_URL: a private nats-server with JetStream on a free port, named in NATS_URL, gone after', async () => {
    const named = process.env.NATS_URL;
    delete process.env.NATS_URL;
    let stop: (() => Promise<void>) | undefined;
    try {
      stop = await startTestNats();
      const url = process.env.NATS_URL as string | undefined;
      expect(url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toBe('nats://127.0.0.1:4222');
      const nc = await connect({ servers: url!, maxReconnectAttempts: 0 });
      try {
        const info = await nc.request('$JS.API.INFO', '', { timeout: 5_000 });
        expect(JSON.parse(info.string()).type).toBe('io.nats.jetstream.api.v1.account_info_response');
      } finally {
        await nc.close();
      }
      await stop!();
      stop = undefined;
      expect(process.env.NATS_URL).toBeUndefined();
      await expect(connect({ servers: url!, maxReconnectAttempts: 0, timeout: 1_000 })).rejects.toThrow();
    } finally {
      await stop?.();
      if (named === undefined) delete process.env.NATS_URL;
      else process.env.NATS_URL = named;
    }
  });

  it('with NATS_URL: that server, and nothing started', async () => {
    const named = process.env.NATS_URL;
    process.env.NATS_URL = 'nats://127.0.0.1:1';
    try {
      expect(await startTestNats()).toBeUndefined();
      expect(process.env.NATS_URL).toBe('nats://127.0.0.1:1');
    } finally {
      if (named === undefined) delete process.env.NATS_URL;
      else process.env.NATS_URL = named;
    }
  });
});
