import { defineEvent, type EventEnvelope } from '@lore/schema';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NATS_URL, reachable } from '../testing/nats.js';
import { MemoryBus } from './memory.js';
import { NatsBus } from './nats.js';
import {
  BusNoResponderError,
  BusRemoteError,
  BusTimeoutError,
  type DeliveryInfo,
  type EventBus,
  type Subscription,
} from './types.js';

const natsUp = await reachable(NATS_URL);
if (!natsUp && !process.env.CI) {
  console.warn(`NatsBus contract tests skipped: no NATS at ${NATS_URL} (start one or set NATS_URL)`);
}

/** One implementation under test. A "bus" stands for one process's connection to it. */
interface Harness {
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

describe.each(implementations)('%s contract', (_name, makeHarness, available) => {
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
  /** Subject namespace of the current test, so tests never see each other's events in a shared stream. */
  let ns = '';

  beforeEach(() => {
    ns = `${h.prefix}.case${++n}`;
  });
  afterEach(() => h.teardown());

  const subject = (verb = 'registered') => `${ns}.agent.${verb}`;
  const consumer = (name: string) => `${ns}.${name}`;

  it('delivers a published event with its payload', async () => {
    const bus = await h.bus();
    const got: [EventEnvelope, DeliveryInfo][] = [];
    await bus.subscribe({ consumer: consumer('svc'), subjects: [`${ns}.agent.*`] }, async (e, info) => {
      got.push([e, info]);
    });
    const sent = envelope(subject(), { agentId: 'a1', tags: ['x'] }, { traceparent: tp });
    await bus.publish(sent);
    await until(() => got.length === 1);
    expect(got[0]![0]).toEqual(sent);
    expect(got[0]![1]).toEqual({ attempt: 1 });
  });

  it('gives every consumer name every event, and splits events among subscriptions sharing a name', async () => {
    const [a, b] = [await h.bus(), await h.bus()];
    const byName: Record<string, string[]> = { first: [], second: [], sharedA: [], sharedB: [] };
    const record = (key: string) => async (e: EventEnvelope) => void byName[key]!.push(e.id);
    const subjects = [subject()];
    await a.subscribe({ consumer: consumer('first'), subjects }, record('first'));
    await b.subscribe({ consumer: consumer('second'), subjects }, record('second'));
    await a.subscribe({ consumer: consumer('shared'), subjects }, record('sharedA'));
    await b.subscribe({ consumer: consumer('shared'), subjects }, record('sharedB'));

    const ids = Array.from({ length: 12 }, (_, i) => `ev-${ns}-${i}`);
    for (const id of ids) await a.publish(envelope(subject(), { i: id }, { id }));

    const shared = () => [...byName['sharedA']!, ...byName['sharedB']!];
    await until(
      () => byName['first']!.length === 12 && byName['second']!.length === 12 && shared().length === 12,
    );
    await settle();
    expect(byName['first']!.sort()).toEqual([...ids].sort());
    expect(byName['second']!.sort()).toEqual([...ids].sort());
    expect(shared().sort()).toEqual([...ids].sort());
  });

  /** An event of the current test's namespace, with a schema that trims and defaults. */
  const registered = () =>
    defineEvent(
      subject(),
      z.object({ agentId: z.string().trim().min(1), tags: z.array(z.string()).default([]) }),
    );

  it('on: hands the handler the payload parsed with the event schema, and the envelope', async () => {
    const bus = await h.bus();
    const Registered = registered();
    const got: { agentId: string; tags: string[]; id: string; attempt: number }[] = [];
    await bus.on(Registered, consumer('typed'), async (payload, event, info) => {
      got.push({ ...payload, id: event.id, attempt: info.attempt });
      expect(event.payload).toEqual(payload);
    });
    const sent = envelope(Registered.subject, { agentId: '  a1 ' });
    await bus.publish(sent);
    await until(() => got.length === 1);
    expect(got).toEqual([{ agentId: 'a1', tags: [], id: sent.id, attempt: 1 }]);
  });

  it('on: counts and acknowledges a payload that fails its schema, and goes on with the next', async () => {
    const bus = await h.bus();
    const Registered = registered();
    const name = consumer('strict');
    const got: string[] = [];
    const attempts: number[] = [];
    await bus.on(Registered, { consumer: name, redeliveryDelayMs: 20 }, async (payload, _e, info) => {
      attempts.push(info.attempt);
      got.push(payload.agentId);
    });
    await bus.publish(envelope(Registered.subject, { agentId: 42 }));
    await bus.publish(envelope(Registered.subject, { tags: ['no id'] }));
    await bus.publish(envelope(Registered.subject, { agentId: 'ok' }, { id: `${ns}-marker` }));
    await until(() => got.includes('ok'));
    await settle();
    expect(got).toEqual(['ok']);
    expect(attempts).toEqual([1]);
    expect(h.errors).toEqual([]);
    expect(
      await bus.drops.count({ event: Registered.subject, consumer: name, reason: 'invalid_payload' }),
    ).toBe(2);
    const text = await bus.drops.registry.metrics();
    expect(text).toContain(
      `lore_events_dropped_total{event="${Registered.subject}",consumer="${name}",reason="invalid_payload"} 2`,
    );
  });

  it('on: does not redeliver a dropped event to a consumer that comes back', async () => {
    const bus = await h.bus();
    const Registered = registered();
    const name = consumer('poison');
    const sub = await bus.on(Registered, name, async () => {});
    await bus.publish(envelope(Registered.subject, { agentId: [] }));
    await expect.poll(() => bus.drops.count({ event: Registered.subject, consumer: name })).toBe(1);
    const { publisher, revive } = await h.restart(bus, sub);
    await publisher.publish(envelope(Registered.subject, { agentId: 'after' }));
    const again = await revive();
    const got: string[] = [];
    await again.on(Registered, name, async (p) => void got.push(p.agentId));
    await until(() => got.length === 1);
    await settle();
    expect(got).toEqual(['after']);
    // A new process counts nothing: the dropped event was acknowledged, not handed to it again.
    expect(await again.drops.count({ event: Registered.subject, consumer: name })).toBe(
      again === bus ? 1 : 0,
    );
  });

  it('redelivers an event whose handler threw, with the next attempt number', async () => {
    const bus = await h.bus();
    const attempts: number[] = [];
    await bus.subscribe(
      { consumer: consumer('flaky'), subjects: [subject()], redeliveryDelayMs: 50 },
      async (_e, { attempt }) => {
        attempts.push(attempt);
        if (attempt === 1) throw new Error('transient');
      },
    );
    const sent = envelope(subject(), {});
    await bus.publish(sent);
    await until(() => attempts.length === 2);
    await settle();
    expect(attempts).toEqual([1, 2]);
    expect(h.errors).toEqual([{ consumer: consumer('flaky'), event: sent }]);
  });

  it('gives up after maxDeliver attempts', async () => {
    const bus = await h.bus();
    const attempts: number[] = [];
    await bus.subscribe(
      { consumer: consumer('broken'), subjects: [subject()], maxDeliver: 3, redeliveryDelayMs: 20 },
      async (_e, { attempt }) => {
        attempts.push(attempt);
        throw new Error('permanent');
      },
    );
    await bus.publish(envelope(subject(), {}));
    await until(() => attempts.length === 3);
    await settle();
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('handles an event published twice under one id once', async () => {
    const [a, b] = [await h.bus(), await h.bus()];
    const got: string[] = [];
    await a.subscribe({ consumer: consumer('svc'), subjects: [subject()] }, async (e) => void got.push(e.id));
    const sent = envelope(subject(), { n: 1 });
    await a.publish(sent);
    await b.publish({ ...sent });
    await a.publish(envelope(subject(), { n: 2 }, { id: 'marker' }));
    await until(() => got.includes('marker'));
    await settle();
    expect(got).toEqual([sent.id, 'marker']);
  });

  it('resumes a durable consumer after its process restarts, with exactly the missed events', async () => {
    const bus = await h.bus();
    const before: string[] = [];
    const name = consumer('durable');
    const sub = await bus.subscribe(
      { consumer: name, subjects: [subject()] },
      async (e) => void before.push(e.id),
    );
    await bus.publish(envelope(subject(), {}, { id: `${ns}-1` }));
    await bus.publish(envelope(subject(), {}, { id: `${ns}-2` }));
    await until(() => before.length === 2);

    const { publisher, revive } = await h.restart(bus, sub);
    await publisher.publish(envelope(subject(), {}, { id: `${ns}-3` }));
    await publisher.publish(envelope(subject(), {}, { id: `${ns}-4` }));

    const after: string[] = [];
    const again = await revive();
    await again.subscribe({ consumer: name, subjects: [subject()] }, async (e) => void after.push(e.id));
    await until(() => after.length === 2);
    await settle();
    expect(before).toEqual([`${ns}-1`, `${ns}-2`]);
    expect(after).toEqual([`${ns}-3`, `${ns}-4`]);
  });

  it('broadcasts to every listener', async () => {
    const [a, b] = [await h.bus(), await h.bus()];
    const heard: [string, string][] = [];
    await a.listen(`${ns}.agent.>`, (e) => void heard.push(['a', e.id]));
    await b.listen(`${ns}.agent.>`, (e) => void heard.push(['b', e.id]));
    const sent = envelope(subject(), {});
    await a.publish(sent);
    await until(() => heard.length === 2);
    expect(heard.sort()).toEqual([
      ['a', sent.id],
      ['b', sent.id],
    ]);
  });

  describe('request/reply', () => {
    const rpc = (name: string) => `rpc.${ns}.${name}`;

    it('round-trips payload, headers and answer', async () => {
      const [server, client] = [await h.bus(), await h.bus()];
      await server.reply(rpc('echo'), async (payload, headers) => ({ payload, trace: headers['x-trace'] }));
      const answer = await client.request(
        rpc('echo'),
        { q: 'hi', n: [1, 2] },
        { headers: { 'x-trace': 'abc' } },
      );
      expect(answer).toEqual({ payload: { q: 'hi', n: [1, 2] }, trace: 'abc' });
    });

    it('maps a coded remote error to BusRemoteError and hides anything else', async () => {
      const [server, client] = [await h.bus(), await h.bus()];
      await server.reply(rpc('coded'), async () => {
        throw Object.assign(new Error('agent not found'), { code: 404, data: { agentId: 'a1' } });
      });
      await server.reply(rpc('crash'), async () => {
        throw new Error('secret database detail');
      });

      const coded = await client.request(rpc('coded'), {}).catch((e: unknown) => e);
      expect(coded).toBeInstanceOf(BusRemoteError);
      expect(coded).toMatchObject({ message: 'agent not found', code: 404, data: { agentId: 'a1' } });

      const crash = await client.request(rpc('crash'), {}).catch((e: unknown) => e);
      expect(crash).toBeInstanceOf(BusRemoteError);
      expect(crash).toMatchObject({ message: 'internal error', code: 500 });
      expect(String((crash as Error).message)).not.toContain('secret');
    });

    it('rejects with BusNoResponderError when nothing answers', async () => {
      const client = await h.bus();
      await expect(client.request(rpc('nobody'), {})).rejects.toBeInstanceOf(BusNoResponderError);
    });

    it('rejects with BusTimeoutError when the answer is late', async () => {
      const [server, client] = [await h.bus(), await h.bus()];
      await server.reply(rpc('slow'), () => new Promise((r) => setTimeout(() => r('late'), 500)));
      await expect(client.request(rpc('slow'), {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(
        BusTimeoutError,
      );
    });
  });

  it('pings while open', async () => {
    const bus = await h.bus();
    await expect(bus.ping()).resolves.toBeUndefined();
  });
});

const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function envelope(subject: string, payload: unknown, extra: Partial<EventEnvelope> = {}): EventEnvelope {
  return {
    id: `evt-${Math.random().toString(36).slice(2)}`,
    subject,
    occurredAt: new Date().toISOString(),
    producer: { node: 'test', service: 'contract' },
    payload,
    ...extra,
  };
}

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Give a wrong extra delivery the chance to show up before asserting there was none. */
const settle = () => new Promise((r) => setTimeout(r, 300));
