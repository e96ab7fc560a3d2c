import { defineRpc } from '@lore/schema/rpc';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseConfigSchema, loadConfig } from '../config.js';
import { createBus } from './index.js';
import { MemoryBus } from './memory.js';
import { answer, call } from './rpc.js';
import { BusRemoteError } from './types.js';

const Double = defineRpc(
  'rpc.demo.double',
  z.object({ n: z.number().int(), label: z.string().default('x') }),
  z.object({ doubled: z.number(), label: z.string() }),
);

describe('typed requests', () => {
  let bus = new MemoryBus();
  beforeEach(() => {
    bus = new MemoryBus();
  });
  afterEach(async () => {
    await bus.close();
  });

  it('hands the handler the parsed request and the caller the parsed reply', async () => {
    const seen: unknown[] = [];
    await answer(bus, Double, async (req) => {
      seen.push(req);
      return { doubled: req.n * 2, label: req.label };
    });
    expect(await call(bus, Double, { n: 21 })).toEqual({ doubled: 42, label: 'x' });
    // The schema's default was applied before the handler ran.
    expect(seen).toEqual([{ n: 21, label: 'x' }]);
  });

  it('refuses a request out of contract with a 400 naming the field, without running the handler', async () => {
    let ran = 0;
    await answer(bus, Double, async (req) => {
      ran++;
      return { doubled: req.n * 2, label: req.label };
    });
    const err = await bus.request(Double.subject, { n: 'two' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusRemoteError);
    expect((err as BusRemoteError).code).toBe(400);
    expect((err as Error).message).toMatch(/^request\.n: /);
    expect(ran).toBe(0);
  });

  it('rejects a reply out of contract with a 502 naming the subject and the field', async () => {
    await bus.reply(Double.subject, async () => ({ doubled: 'many', label: 'x' }));
    const err = await call(bus, Double, { n: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusRemoteError);
    expect((err as BusRemoteError).code).toBe(502);
    expect((err as Error).message).toBe(
      'rpc.demo.double answered out of contract: reply.doubled: Invalid input: expected number, received string',
    );
  });
});

describe('request deadlines', () => {
  const Slow = defineRpc('rpc.demo.slow', z.object({ ms: z.number() }), z.object({ waited: z.number() }));
  const slowBus = async (bus: MemoryBus) => {
    // The answer is paced, not awaited on a timer elsewhere: it comes after `ms`.
    await answer(bus, Slow, async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { waited: ms };
    });
    return bus;
  };

  it("scale by the bus's timeoutScale (LORE_BUS_TIMEOUT_SCALE), the caller's figure and the default alike", async () => {
    const plain = await slowBus(new MemoryBus());
    const scaled = await slowBus(new MemoryBus(undefined, undefined, 4));
    try {
      const late = await call(plain, Slow, { ms: 300 }, { timeoutMs: 100 }).catch((e: unknown) => e);
      expect((late as Error).message).toBe('no answer on rpc.demo.slow within 100 ms');
      expect(await call(scaled, Slow, { ms: 300 }, { timeoutMs: 100 })).toEqual({ waited: 300 });
      const stillLate = await call(scaled, Slow, { ms: 1_000 }, { timeoutMs: 100 }).catch((e: unknown) => e);
      expect((stillLate as Error).message).toBe('no answer on rpc.demo.slow within 400 ms');
    } finally {
      await plain.close();
      await scaled.close();
    }
  });

  it('take the scale from the configuration when the bus is created from it', async () => {
    const bus = (await createBus({ timeoutScale: 2 })) as MemoryBus;
    try {
      await slowBus(bus);
      const late = await call(bus, Slow, { ms: 1_000 }, { timeoutMs: 50 }).catch((e: unknown) => e);
      expect((late as Error).message).toBe('no answer on rpc.demo.slow within 100 ms');
      expect(loadConfig({}, BaseConfigSchema).LORE_BUS_TIMEOUT_SCALE).toBe(1);
      expect(loadConfig({ LORE_BUS_TIMEOUT_SCALE: '3' }, BaseConfigSchema).LORE_BUS_TIMEOUT_SCALE).toBe(3);
      expect(() => loadConfig({ LORE_BUS_TIMEOUT_SCALE: '0.5' }, BaseConfigSchema)).toThrow(
        /LORE_BUS_TIMEOUT_SCALE/,
      );
    } finally {
      await bus.close();
    }
  });
});
