import type { EventEnvelope } from '@lore/schema/events';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeEach, describe, it } from 'vitest';
import { NATS_URL, reachable } from '../testing/nats.js';
import { MemoryBus } from './memory.js';
import { NatsBus } from './nats.js';
import type { EventBus, Subscription } from './types.js';

const natsUp = await reachable(NATS_URL);
if (!natsUp && !process.env.CI) {
  console.warn(`NatsBus contract tests skipped: no NATS at ${NATS_URL} (start one or set NATS_URL)`);
}

/** One implementation under test. A "bus" stands for one process's connection to it. */
export interface Harness {
  teardown(): Promise<void>;
  /** First subject token the bus accepts events under. */
  prefix: string;
  /** Another process's bus (for MemoryBus, every process is the same one). */
  bus(): Promise<EventBus>;
  /**
   * Take a subscribing process down: returns a bus to publish from meanwhile and one to
   * resubscribe on once it comes back.
   */
  restart(bus: EventBus, sub: Subscription): Promise<{ publisher: EventBus; revive(): Promise<EventBus> }>;
  errors: { consumer: string; event?: EventEnvelope }[];
}

function memoryHarness(): Harness {
  let shared: MemoryBus | undefined;
  const h: Harness = {
    prefix: 'lore',
    errors: [],
    // Every test starts with a fresh bus.
    async teardown() {
      await shared?.close();
      shared = undefined;
      h.errors.length = 0;
    },
    async bus() {
      shared ??= new MemoryBus((_err, event, consumer) => h.errors.push({ consumer, event }));
      return shared;
    },
    async restart(bus, sub) {
      await sub.close();
      return { publisher: bus, revive: async () => bus };
    },
  };
  return h;
}

function natsHarness(): Harness {
  const id = Math.random().toString(36).slice(2, 10);
  const stream = `LORE_TEST_${id}`;
  const open = new Set<EventBus>();
  const h: Harness = {
    // Two streams may not capture overlapping subjects, so every run gets its own prefix.
    prefix: `t${id}`,
    errors: [],
    async teardown() {
      await Promise.all([...open].map((b) => b.close()));
      open.clear();
      h.errors.length = 0;
    },
    async bus() {
      const bus = await NatsBus.connect({
        url: NATS_URL,
        stream,
        subjectPrefix: h.prefix,
        name: 'bus-contract-test',
        onError: (_err, event, consumer) => h.errors.push({ consumer, event }),
      });
      open.add(bus);
      return bus;
    },
    async restart(bus) {
      // The whole process goes away, not only its subscription.
      await bus.close();
      open.delete(bus);
      return { publisher: await h.bus(), revive: () => h.bus() };
    },
  };
  afterAll(async () => {
    const nc = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => false);
    await nc.close();
  });
  return h;
}

const implementations: [string, () => Harness, boolean][] = [
  ['MemoryBus', memoryHarness, true],
  ['NatsBus', natsHarness, natsUp],
];

/** What a contract case sees: the harness and the current test's subject namespace. */
export interface Contract {
  h: Harness;
  /** Subject namespace of the current test, so tests never see each other's events in a shared stream. */
  readonly ns: string;
  subject(verb?: string): string;
  consumer(name: string): string;
}

/**
 * Runs `cases` against every bus implementation (NatsBus only where NATS is reachable; CI
 * requires it), each test in its own subject namespace on a fresh bus.
 */
export function describeContract(title: string, cases: (c: Contract) => void): void {
  describe.each(implementations)(`%s ${title}`, (_name, makeHarness, available) => {
    if (!available) {
      // CI promises a NATS server, so a missing one is a failure there, not a skip.
      if (process.env.CI) {
        it('reaches NATS', () => {
          throw new Error(`NATS is not reachable at ${NATS_URL} (required when CI is set)`);
        });
      } else {
        it.skip(`needs NATS at ${NATS_URL}`, () => {});
      }
      return;
    }
    const h = makeHarness();
    let n = 0;
    const c: Contract = {
      h,
      ns: '',
      subject: (verb = 'registered') => `${c.ns}.agent.${verb}`,
      consumer: (name) => `${c.ns}.${name}`,
    };
    beforeEach(() => {
      (c as { ns: string }).ns = `${h.prefix}.case${++n}`;
    });
    afterEach(() => h.teardown());
    cases(c);
  });
}

export const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

export function envelope(
  subject: string,
  payload: unknown,
  extra: Partial<EventEnvelope> = {},
): EventEnvelope {
  return {
    id: `evt-${Math.random().toString(36).slice(2)}`,
    subject,
    occurredAt: new Date().toISOString(),
    producer: { node: 'test', service: 'contract' },
    payload,
    ...extra,
  };
}

export async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Give a wrong extra delivery the chance to show up before asserting there was none. */
export const settle = () => new Promise((r) => setTimeout(r, 300));
