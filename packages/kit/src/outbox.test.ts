import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { EventEnvelope } from '@lore/schema';
import { defineEvent } from '@lore/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryBus } from './bus/memory.js';
import { NatsBus } from './bus/nats.js';
import type { EventBus } from './bus/types.js';
import { openDatabase, outbox as outboxTable } from './db/index.js';
import { createLogger } from './logger.js';
import { handleOnce, Outbox } from './outbox.js';
import { freePort, NatsServerProcess, tempDir } from './testing/index.js';

const Pinged = defineEvent('lore.test.ping.sent', z.object({ n: z.number() }));
const log = createLogger({ name: 'test', level: 'silent' });

async function open(dir: string) {
  // The kit's own tables are all an outbox needs.
  return openDatabase({ url: `file:${join(dir, 'svc.db')}`, schema: {} });
}

/** A bus that can be switched off, like a NATS server that is unreachable. */
class SwitchableBus extends MemoryBus {
  down = false;
  /** Publishes refused while down: how a test knows the outbox has tried. */
  refused = 0;
  override async publish(e: EventEnvelope) {
    if (this.down) {
      this.refused++;
      throw new Error('bus unreachable');
    }
    return super.publish(e);
  }
}

describe('outbox', () => {
  const dirs: Array<() => void> = [];
  afterAll(() => {
    for (const d of dirs) d();
  });

  it('writes an event with its rows and relays it after commit', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const db = await open(dir.path);
    const bus = new MemoryBus();
    const got: number[] = [];
    await bus.subscribe({ consumer: 'c', subjects: [Pinged.subject] }, async (e) => {
      got.push((e.payload as { n: number }).n);
    });
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'test' }, log, undefined, 50);
    outbox.start();
    await outbox.transaction(async (_tx, emit) => {
      emit(Pinged, { n: 1 });
    });
    await expect.poll(() => got, { timeout: 2000 }).toEqual([1]);
    await outbox.stop();
  });

  it('drops the events of a rolled-back transaction', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const db = await open(dir.path);
    const bus = new MemoryBus();
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'test' }, log);
    await expect(
      outbox.transaction(async (_tx, emit) => {
        emit(Pinged, { n: 2 });
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    expect(await outbox.flush()).toBe(0);
  });

  it('delivers an event written while the bus is down once the bus returns', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const db = await open(dir.path);
    const bus = new SwitchableBus();
    const got: number[] = [];
    await bus.subscribe({ consumer: 'c', subjects: [Pinged.subject] }, async (e) => {
      got.push((e.payload as { n: number }).n);
    });
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'test' }, log, undefined, 50);
    bus.down = true;
    outbox.start();
    await outbox.transaction(async (_tx, emit) => {
      emit(Pinged, { n: 3 });
    });
    // The relay has tried (and been refused) twice: nothing got through meanwhile.
    await expect.poll(() => bus.refused, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(got).toEqual([]);
    bus.down = false;
    await expect.poll(() => got, { timeout: 10_000 }).toEqual([3]);
    await outbox.stop();
  });

  it('delivers an event committed just before a crash after the restart', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const bus = new MemoryBus();
    const got: number[] = [];
    await bus.subscribe({ consumer: 'c', subjects: [Pinged.subject] }, async (e) => {
      got.push((e.payload as { n: number }).n);
    });
    // First life: the rows commit, the process dies before the relay runs.
    const db1 = await open(dir.path);
    const dead = new Outbox(db1, bus, { node: 'n1', service: 'test' }, log);
    await dead.transaction(async (_tx, emit) => {
      emit(Pinged, { n: 4 });
    });
    db1.$client.close();
    expect(got).toEqual([]);
    // Second life: a fresh process over the same database file.
    const db2 = await open(dir.path);
    const outbox = new Outbox(db2, bus, { node: 'n1', service: 'test' }, log, undefined, 50);
    outbox.start();
    await expect.poll(() => got, { timeout: 2000 }).toEqual([4]);
    await outbox.stop();
  });

  it('applies a redelivered event once (handleOnce)', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const db = await open(dir.path);
    const event: EventEnvelope = {
      id: randomUUID(),
      subject: Pinged.subject,
      occurredAt: new Date().toISOString(),
      producer: { node: 'n', service: 's' },
      payload: { n: 5 },
    };
    let applied = 0;
    const handle = () =>
      handleOnce(db, 'consumer-a', event, async () => {
        applied++;
      });
    expect(await handle()).toBe(true);
    expect(await handle()).toBe(false);
    expect(applied).toBe(1);
    // A different consumer applies it for itself.
    expect(await handleOnce(db, 'consumer-b', event, async () => {})).toBe(true);
  });

  it('keeps the table bounded under a stream of events: sent rows are pruned', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const db = await open(dir.path);
    const bus = new MemoryBus();
    let got = 0;
    await bus.subscribe({ consumer: 'c', subjects: [Pinged.subject] }, async () => {
      got++;
    });
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'test' }, log, undefined, 20, {
      keepSentMs: 0,
      pruneEveryMs: 0,
    });
    outbox.start();
    // Rounds of events: after each, the relay has sent and cleared them all, so the table is back
    // to empty instead of holding every event ever sent.
    for (let round = 1; round <= 4; round++) {
      for (let batch = 0; batch < 10; batch++)
        await outbox.transaction(async (_tx, emit) => {
          for (let i = 0; i < 25; i++) emit(Pinged, { n: i });
        });
      await expect.poll(() => got, { timeout: 10_000 }).toBe(round * 250);
      await expect.poll(() => db.$count(outboxTable), { timeout: 10_000 }).toBe(0);
    }
    await outbox.stop();
  });

  it('prune leaves unsent events and recent sent ones alone', async () => {
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const db = await open(dir.path);
    const bus = new SwitchableBus();
    const outbox = new Outbox(db, bus, { node: 'n1', service: 'test' }, log);
    await outbox.transaction(async (_tx, emit) => {
      emit(Pinged, { n: 1 });
    });
    await outbox.flush();
    bus.down = true;
    await outbox.transaction(async (_tx, emit) => {
      emit(Pinged, { n: 2 });
    });
    expect(await outbox.prune(60_000)).toBe(0);
    expect(await outbox.prune(-1)).toBe(1);
    expect(await db.$count(outboxTable)).toBe(1);
  });

  it('with a real NATS server: an event written while NATS is down arrives after NATS restarts', async () => {
    if (!NatsServerProcess.binaryAvailable()) {
      if (process.env.CI) throw new Error('nats-server binary is required under CI');
      return;
    }
    const dir = tempDir();
    dirs.push(dir.cleanup);
    const nats = new NatsServerProcess(await freePort(), join(dir.path, 'js'));
    await nats.start();
    let bus: EventBus | undefined;
    let consumerBus: EventBus | undefined;
    try {
      bus = await NatsBus.connect({ url: nats.url, stream: 'OUTBOX_TEST', subjectPrefix: 'lore' });
      const db = await open(dir.path);
      // The outbox's view of the bus, counting the publishes that fail.
      const target = bus;
      let failed = 0;
      const relayed: EventBus = Object.assign(Object.create(target) as EventBus, {
        publish: (e: EventEnvelope) =>
          target.publish(e).catch((err: unknown) => {
            failed++;
            throw err;
          }),
      });
      const outbox = new Outbox(db, relayed, { node: 'n1', service: 'test' }, log, undefined, 50);
      outbox.start();
      await nats.kill();
      await outbox.transaction(async (_tx, emit) => {
        emit(Pinged, { n: 6 });
      });
      // The relay has tried and failed while NATS was down: the event waits in the outbox.
      await expect.poll(() => failed, { timeout: 15_000, interval: 50 }).toBeGreaterThan(0);
      await nats.start();
      consumerBus = await NatsBus.connect({ url: nats.url, stream: 'OUTBOX_TEST', subjectPrefix: 'lore' });
      const got: number[] = [];
      await consumerBus.subscribe({ consumer: 'after-restart', subjects: [Pinged.subject] }, async (e) => {
        got.push((e.payload as { n: number }).n);
      });
      await expect.poll(() => got, { timeout: 15_000, interval: 100 }).toEqual([6]);
      await outbox.stop();
    } finally {
      await consumerBus?.close();
      await bus?.close().catch(() => {});
      await nats.kill();
    }
  }, 30_000);
});
