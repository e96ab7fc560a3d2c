import { StatsReply } from '@lore/schema';
import { describe, expect, it } from 'vitest';
import { MemoryBus } from './bus/memory.js';
import { DailyCalls, statsResponder, utcDayStart } from './stats.js';

const DAY = 86_400_000;

describe('DailyCalls', () => {
  it('counts every call of a process started today, and only today’s after midnight UTC', async () => {
    let now = Date.parse('2026-03-01T22:00:00Z');
    let total = 0;
    const calls = new DailyCalls(
      async () => total,
      () => now,
    );
    total = 40;
    expect(await calls.today()).toBe(40);
    now = Date.parse('2026-03-02T00:00:05Z');
    total = 41;
    // The first look after midnight starts the new day from the counter as it is then.
    expect(await calls.today()).toBe(0);
    total = 45;
    expect(await calls.today()).toBe(4);
    now += DAY;
    expect(await calls.today()).toBe(0);
  });

  it('knows where a UTC day starts', () => {
    expect(new Date(utcDayStart(Date.parse('2026-03-01T23:59:59.999Z'))).toISOString()).toBe(
      '2026-03-01T00:00:00.000Z',
    );
  });
});

describe('statsResponder', () => {
  it('answers rpc.<service>.stats with the figures since the given start and the calls today', async () => {
    const bus = new MemoryBus();
    let asked = 0;
    const sub = await statsResponder({
      service: 'demo',
      totalCalls: async () => 7,
      figures: async (since) => {
        asked = since;
        return { widgets: 3 };
      },
    })(bus);
    const since = '2026-03-01T00:00:00.000Z';
    const reply = StatsReply.parse(await bus.request('rpc.demo.stats', { since }));
    expect(reply).toEqual({ service: 'demo', figures: { widgets: 3, callsToday: 7 } });
    expect(asked).toBe(Date.parse(since));
    await sub.close();
    await expect(bus.request('rpc.demo.stats', { since })).rejects.toThrow(/nothing answers/);
    await bus.close();
  });
});
