import { defineEvent } from '@lore/schema/events';
import { defineRpc } from '@lore/schema/rpc';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentKeysContract,
  Authenticator,
  agentKeysOverBus,
  bearerToken,
  generateApiKey,
  hashApiKey,
} from './auth.js';
import { MemoryBus } from './bus/memory.js';
import {
  BaseConfigSchema,
  ConfigError,
  databaseFor,
  databaseSettings,
  envBool,
  envInt,
  loadConfig,
  settingsOf,
} from './config.js';
import { fromZodError } from './errors.js';
import { RateLimiter } from './rate-limit.js';
import { createService } from './service.js';
import { appFetch, call, connectClient, memoryAgentKeys, testConfig, testDeps } from './testing/index.js';
import { READ_ONLY, toolsFor } from './tool.js';

describe('config', () => {
  it('applies defaults and names every bad variable', () => {
    const c = loadConfig({});
    expect(c.LORE_PORT).toBe(7400);
    expect(databaseFor(c, 'users')).toEqual({ url: 'file:./data/users.db' });
    try {
      loadConfig({ LORE_PORT: 'abc', LORE_LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/LORE_PORT/);
      expect((err as Error).message).toMatch(/LORE_LOG_LEVEL/);
    }
  });

  it("loads with a service's schema: the base and its own settings, each bad one named", () => {
    const Settings = z.object({
      ...databaseSettings('users'),
      LORE_WINDOW_MINUTES: envInt(15),
      LORE_SEED: envBool.default(true),
    });
    const Schema = BaseConfigSchema.extend(Settings.shape);
    const c = loadConfig(
      { LORE_USERS_DB_URL: 'libsql://x', LORE_USERS_DB_AUTH_TOKEN: 't', LORE_SEED: 'no', LORE_PORT: '81' },
      Schema,
    );
    expect(c).toMatchObject({ LORE_PORT: 81, LORE_WINDOW_MINUTES: 15, LORE_SEED: false });
    expect(databaseFor(c, 'users')).toEqual({ url: 'libsql://x', authToken: 't' });
    // The base alone knows nothing of a service's variables.
    expect(loadConfig({ LORE_SEED: 'no' })).not.toHaveProperty('LORE_SEED');
    expect(() => loadConfig({ LORE_WINDOW_MINUTES: '-3' }, Schema)).toThrow(/LORE_WINDOW_MINUTES/);
    expect(() => loadConfig({ LORE_SEED: 'maybe' }, Schema)).toThrow(ConfigError);
    expect(() => loadConfig({ LORE_SEED: 'maybe' }, Schema)).toThrow(/LORE_SEED/);
  });

  it("reads a service's settings out of a parsed configuration or out of text, naming a bad one", () => {
    const Settings = z.object({ LORE_WINDOW_MINUTES: envInt(15), LORE_SEED: envBool.default(true) });
    expect(settingsOf(Settings, loadConfig({}))).toEqual({ LORE_WINDOW_MINUTES: 15, LORE_SEED: true });
    const parsed = loadConfig(
      { LORE_SEED: 'false', LORE_WINDOW_MINUTES: '5' },
      BaseConfigSchema.extend(Settings.shape),
    );
    expect(settingsOf(Settings, parsed)).toEqual({ LORE_WINDOW_MINUTES: 5, LORE_SEED: false });
    expect(settingsOf(Settings, testConfig('./unused', { LORE_SEED: 'no' }))).toMatchObject({
      LORE_SEED: false,
    });
    expect(() => settingsOf(Settings, { LORE_WINDOW_MINUTES: 'soon' })).toThrow(/LORE_WINDOW_MINUTES/);
  });
});

describe('errors', () => {
  it('turns the first zod issue into a 400 naming the field and the rule', () => {
    const schema = z.object({
      a: z.object({ b: z.string().max(3, { error: 'at most 3 characters' }) }),
      c: z.number(),
    });
    const input = { a: { b: 'toolong' } };
    const e1 = fromZodError(schema.safeParse(input).error!, input);
    expect(e1.toBody()).toEqual({
      code: 400,
      message: 'Invalid a.b: at most 3 characters',
      data: { field: 'a.b', constraint: 'at most 3 characters' },
    });
    const input2 = { a: { b: 'ok' } };
    expect(fromZodError(schema.safeParse(input2).error!, input2).toBody()).toMatchObject({
      data: { field: 'c', constraint: 'required' },
    });
    const input3 = { a: { b: 'ok' }, c: 'x' };
    expect(fromZodError(schema.safeParse(input3).error!, input3).toBody()).toMatchObject({
      data: { field: 'c', constraint: 'expected number' },
    });
  });
});

describe('rate limiter', () => {
  it('never lets N parallel calls past the limit, then frees slots as the window slides', async () => {
    let now = 0;
    const rl = new RateLimiter({ post: 5 }, 60_000, () => now);
    const waits = await Promise.all(Array.from({ length: 50 }, () => rl.take('a', 'post')));
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
    expect(waits[5]).toBe(60);
    expect(await rl.take('b', 'post')).toBe(0);
    now = 30_000;
    expect(await rl.take('a', 'post')).toBe(30);
    now = 60_001;
    expect(await rl.take('a', 'post')).toBe(0);
  });
});

/** A key service of the test's own: the kit's authentication names none. */
const Keys = {
  lookup: defineRpc(
    'rpc.keeper.lookup',
    z.object({ keyHash: z.string() }),
    z.object({ agent: z.object({ id: z.string(), handle: z.string(), node: z.string() }).nullable() }),
  ),
  revoked: defineEvent('lore.keeper.key.revoked', z.object({ revokedKeyHash: z.string() })),
} satisfies AgentKeysContract;

describe('authenticator', () => {
  it('keeps the most recently used keys up to its bound', async () => {
    const bus = new MemoryBus();
    const asked = new Map<string, number>();
    await bus.reply(Keys.lookup.subject, async (p) => {
      const { keyHash } = p as { keyHash: string };
      asked.set(keyHash, (asked.get(keyHash) ?? 0) + 1);
      return { agent: { id: keyHash.slice(0, 8), handle: 'alice', node: 'n' } };
    });
    const auth = new Authenticator(agentKeysOverBus(Keys)(bus), 30_000, Date.now, 3);
    const keys = Array.from({ length: 4 }, () => generateApiKey());
    for (const key of keys) await auth.verify(key);
    // The fourth key pushed out the least recently used: the first is asked again, the last not.
    await auth.verify(keys[3]!);
    await auth.verify(keys[0]!);
    expect(asked.get(hashApiKey(keys[3]!))).toBe(1);
    expect(asked.get(hashApiKey(keys[0]!))).toBe(2);
  });

  it('caches a verified key and forgets it when the key is rotated', async () => {
    const bus = new MemoryBus();
    const key = generateApiKey();
    let valid = true;
    let asked = 0;
    await bus.reply(Keys.lookup.subject, async (p) => {
      asked++;
      const { keyHash } = p as { keyHash: string };
      return {
        agent: valid && keyHash === hashApiKey(key) ? { id: 'a1', handle: 'alice', node: 'n' } : null,
      };
    });
    const auth = new Authenticator(agentKeysOverBus(Keys)(bus), 30_000);
    await auth.start();
    expect(await auth.verify(key)).toMatchObject({ handle: 'alice' });
    expect(await auth.verify(key)).toMatchObject({ handle: 'alice' });
    expect(asked).toBe(1);
    valid = false;
    await bus.publish({
      id: 'e1',
      subject: Keys.revoked.subject,
      occurredAt: new Date().toISOString(),
      producer: { node: 'n', service: 'keeper' },
      payload: { revokedKeyHash: hashApiKey(key) },
    });
    expect(await auth.verify(key)).toBeNull();
    expect(await auth.verify('not-a-key')).toBeNull();
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    await auth.stop();
  });

  it('counts a malformed key rotation as dropped and keeps the cached key', async () => {
    const bus = new MemoryBus();
    const key = generateApiKey();
    let asked = 0;
    await bus.reply(Keys.lookup.subject, async () => {
      asked++;
      return { agent: { id: 'a1', handle: 'alice', node: 'n' } };
    });
    const auth = new Authenticator(agentKeysOverBus(Keys)(bus), 30_000);
    await auth.start();
    await auth.verify(key);
    await bus.publish({
      id: 'e2',
      subject: Keys.revoked.subject,
      occurredAt: new Date().toISOString(),
      producer: { node: 'n', service: 'keeper' },
      payload: { revokedKeyHash: 42 },
    });
    expect(
      await bus.drops.count({
        event: Keys.revoked.subject,
        consumer: 'kit-authenticator',
        reason: 'invalid_payload',
      }),
    ).toBe(1);
    await auth.verify(key);
    expect(asked).toBe(1);
    await auth.stop();
  });
});

describe('createService', () => {
  const tool = toolsFor<{ greeting: string }>();
  const tools = [
    tool({
      name: 'hello',
      title: 'Hello',
      description: 'Greets the caller.',
      input: z.object({ name: z.string().max(10, { error: 'at most 10 characters' }).optional() }),
      output: z.object({ greeting: z.string(), caller: z.string() }),
      annotations: READ_ONLY,
      rateClass: 'read',
      async handler({ name }, ctx) {
        return {
          text: `${ctx.ports.greeting} ${name ?? ctx.agent.handle}`,
          data: { greeting: ctx.ports.greeting, caller: ctx.agent.handle },
        };
      },
    }),
    tool({
      name: 'broken_shape',
      title: 'Broken',
      description: 'Returns data that does not match its schema.',
      input: z.object({}),
      output: z.object({ n: z.number() }),
      annotations: READ_ONLY,
      rateClass: 'read',
      public: true,
      async handler() {
        return { text: 'x', data: { n: 'not a number' as unknown as number } };
      },
    }),
  ];

  async function setup() {
    const env = testDeps({ LORE_MAX_BODY_BYTES: '2000' });
    const key = generateApiKey();
    const svc = createService({
      name: 'greeter',
      version: '1.0.0',
      tools,
      ports: { greeting: 'hi' },
      deps: env.deps,
      agentKeys: memoryAgentKeys({ [key]: { id: 'a1', handle: 'alice', node: 'n' } }),
    });
    await svc.start();
    return { env, svc, key };
  }

  it('runs a tool as the caller the key names, over both protocol eras', async () => {
    const { env, svc, key } = await setup();
    for (const era of ['modern', 'legacy'] as const) {
      const c = await connectClient(appFetch(svc.app), { key, era });
      const r = await call(c, 'hello', {});
      expect(r.text).toBe('hi alice');
      expect(r.data).toEqual({ greeting: 'hi', caller: 'alice' });
    }
    await svc.stop();
    await env.cleanup();
  });

  it('answers 401 without a key, 400 on bad input, 500 without details on a broken result', async () => {
    const { env, svc, key } = await setup();
    const anon = await connectClient(appFetch(svc.app));
    expect((await call(anon, 'hello', {})).error?.code).toBe(401);
    const c = await connectClient(appFetch(svc.app), { key });
    expect((await call(c, 'hello', { name: 'x'.repeat(11) })).error).toMatchObject({
      code: 400,
      data: { field: 'name' },
    });
    const broken = await call(anon, 'broken_shape', {});
    expect(broken.error?.code).toBe(500);
    expect(broken.text).not.toMatch(/at |stack|ZodError/);
    await expect(c.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await svc.stop();
    await env.cleanup();
  });

  it('refuses an oversized body early with 413 and counts calls in /metrics', async () => {
    const { env, svc, key } = await setup();
    const res = await svc.app.request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'hello', arguments: { name: 'x'.repeat(80_000) } },
      }),
    });
    expect(res.status).toBe(413);
    const c = await connectClient(appFetch(svc.app), { key });
    await call(c, 'hello', {});
    const metrics = await (await svc.app.request('/metrics')).text();
    expect(metrics).toMatch(/lore_tool_calls_total\{service="greeter",tool="hello",code="200"\} 1/);
    expect((await svc.app.request('/healthz')).status).toBe(200);
    expect((await svc.app.request('/readyz')).status).toBe(200);
    await svc.stop();
    await env.cleanup();
  });
});
