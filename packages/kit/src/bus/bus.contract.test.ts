import type { EventEnvelope } from '@lore/schema';
import { describe, expect, it } from 'vitest';
import { describeContract, envelope, settle, tp, until } from './contract-harness.js';
import { BusNoResponderError, BusRemoteError, BusTimeoutError, type DeliveryInfo } from './types.js';

describeContract('contract', (c) => {
  const { h, subject, consumer } = c;

  it('delivers a published event with its payload', async () => {
    const bus = await h.bus();
    const got: [EventEnvelope, DeliveryInfo][] = [];
    await bus.subscribe({ consumer: consumer('svc'), subjects: [`${c.ns}.agent.*`] }, async (e, info) => {
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

    const ids = Array.from({ length: 12 }, (_, i) => `ev-${c.ns}-${i}`);
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
    await bus.publish(envelope(subject(), {}, { id: `${c.ns}-1` }));
    await bus.publish(envelope(subject(), {}, { id: `${c.ns}-2` }));
    await until(() => before.length === 2);

    const { publisher, revive } = await h.restart(bus, sub);
    await publisher.publish(envelope(subject(), {}, { id: `${c.ns}-3` }));
    await publisher.publish(envelope(subject(), {}, { id: `${c.ns}-4` }));

    const after: string[] = [];
    const again = await revive();
    await again.subscribe({ consumer: name, subjects: [subject()] }, async (e) => void after.push(e.id));
    await until(() => after.length === 2);
    await settle();
    expect(before).toEqual([`${c.ns}-1`, `${c.ns}-2`]);
    expect(after).toEqual([`${c.ns}-3`, `${c.ns}-4`]);
  });

  it('broadcasts to every listener', async () => {
    const [a, b] = [await h.bus(), await h.bus()];
    const heard: [string, string][] = [];
    await a.listen(`${c.ns}.agent.>`, (e) => void heard.push(['a', e.id]));
    await b.listen(`${c.ns}.agent.>`, (e) => void heard.push(['b', e.id]));
    const sent = envelope(subject(), {});
    await a.publish(sent);
    await until(() => heard.length === 2);
    expect(heard.sort()).toEqual([
      ['a', sent.id],
      ['b', sent.id],
    ]);
  });

  describe('request/reply', () => {
    const rpc = (name: string) => `rpc.${c.ns}.${name}`;

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
