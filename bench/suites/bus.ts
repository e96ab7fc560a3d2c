import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createLogger } from '@lore/kit';
import { Outbox } from '@lore/kit/bus';
import { openDatabase } from '@lore/kit/db';
import { NatsBus } from '@lore/kit/nats';
import { freePort, NatsServerProcess } from '@lore/kit/testing';
import { defineEvent } from '@lore/schema';
import { z } from 'zod';
import { percentile, type Row, row } from '../lib.js';

const Ticked = defineEvent('lore.bench.tick.sent', z.object({ n: z.number(), at: z.number() }));
/** A subject of its own for the latency run, so its consumer starts with no backlog. */
const Timed = defineEvent('lore.bench.tick.timed', z.object({ n: z.number(), at: z.number() }));

/**
 * The bus: raw JetStream publishes (the baseline) vs the outbox relay publishing committed
 * events, and end-to-end latency from commit to a durable consumer's handler.
 */
export async function busSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const nats = new NatsServerProcess(await freePort(), join(opts.dataDir, 'js'));
  await nats.start();
  const rows: Row[] = [];
  const bus = await NatsBus.connect({ url: nats.url, stream: 'BENCH' });
  try {
    const N = 3000;
    const envelope = (n: number) => ({
      id: randomUUID(),
      subject: Ticked.subject,
      occurredAt: new Date().toISOString(),
      producer: { node: 'bench', service: 'bench' },
      payload: { n, at: Date.now() },
    });
    let t0 = performance.now();
    for (let i = 0; i < N; i++) await bus.publish(envelope(i));
    const rawSeq = N / ((performance.now() - t0) / 1000);
    t0 = performance.now();
    for (let i = 0; i < N; i += 100)
      await Promise.all(Array.from({ length: 100 }, (_, j) => bus.publish(envelope(i + j))));
    const rawPar = N / ((performance.now() - t0) / 1000);
    rows.push(row({ suite: 'bus', name: 'JetStream publish, sequential', value: rawSeq, unit: 'events/s' }));
    rows.push(
      row({ suite: 'bus', name: 'JetStream publish, 100 in flight', value: rawPar, unit: 'events/s' }),
    );

    const db = await openDatabase({ url: `file:${join(opts.dataDir, 'outbox.db')}`, schema: {} });
    const outbox = new Outbox(
      db,
      bus,
      { node: 'bench', service: 'bench' },
      createLogger({ name: 'bench', level: 'silent' }),
    );
    // Commit N events (in batches of 100 per transaction), then time the relay draining them.
    for (let i = 0; i < N; i += 100) {
      await outbox.transaction(async (_tx, emit) => {
        for (let j = 0; j < 100; j++) emit(Ticked, { n: i + j, at: Date.now() });
      });
    }
    t0 = performance.now();
    const sent = await outbox.flush();
    const relay = sent / ((performance.now() - t0) / 1000);
    rows.push(
      row({
        suite: 'bus',
        name: 'outbox relay to JetStream',
        value: relay,
        unit: 'events/s',
        baseline: { name: 'raw sequential', value: rawSeq },
      }),
    );

    // End to end: commit → relay → JetStream → durable consumer.
    const latencies: number[] = [];
    const consumer = await NatsBus.connect({ url: nats.url, stream: 'BENCH' });
    const sub = await consumer.subscribe(
      { consumer: `bench-e2e-${Date.now()}`, subjects: [Timed.subject] },
      async (e) => {
        latencies.push(Date.now() - (e.payload as { at: number }).at);
      },
    );
    await new Promise((r) => setTimeout(r, 500));
    outbox.start();
    const M = 500;
    for (let i = 0; i < M; i++) {
      await outbox.transaction(async (_tx, emit) => {
        emit(Timed, { n: i, at: Date.now() });
      });
      // Spaced like requests arriving, so the relay gets its turns as it would in a service.
      await new Promise((r) => setTimeout(r, 2));
    }
    const deadline = Date.now() + 30_000;
    while (latencies.length < M && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await outbox.stop();
    await sub.close();
    await consumer.close();
    latencies.sort((a, b) => a - b);
    rows.push(
      row({
        suite: 'bus',
        name: 'end-to-end event latency p50 (commit → handler)',
        value: percentile(latencies, 50),
        unit: 'ms',
      }),
    );
    rows.push(
      row({
        suite: 'bus',
        name: 'end-to-end event latency p99',
        value: percentile(latencies, 99),
        unit: 'ms',
      }),
    );
    rows.push(
      row({ suite: 'bus', name: 'events delivered of sent', value: latencies.length / M, unit: 'fraction' }),
    );
  } finally {
    await bus.close();
    await nats.kill();
  }
  return rows;
}
