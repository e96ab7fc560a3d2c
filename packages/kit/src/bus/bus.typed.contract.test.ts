import { defineEvent } from '@lore/schema';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeContract, envelope, settle, until } from './contract-harness.js';

/** `bus.on`: one event, its payload parsed with the event's schema; what fails it is dropped and counted. */
describeContract('typed contract', (c) => {
  const { h, subject, consumer } = c;

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
    await bus.publish(envelope(Registered.subject, { agentId: 'ok' }, { id: `${c.ns}-marker` }));
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

  it('listenTo: hands every listener the parsed payload, and counts a payload that fails its schema', async () => {
    const [a, b] = [await h.bus(), await h.bus()];
    const Registered = registered();
    const heard: [string, string][] = [];
    await a.listenTo(Registered, consumer('cache-a'), (p) => void heard.push(['a', p.agentId]));
    await b.listenTo(Registered, consumer('cache-b'), (p) => void heard.push(['b', p.agentId]));
    await a.publish(envelope(Registered.subject, { agentId: ['not', 'a', 'string'] }));
    await a.publish(envelope(Registered.subject, { agentId: ' ok ' }));
    await until(() => heard.length === 2);
    await settle();
    expect(heard.sort()).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
    ]);
    for (const [bus, name] of [
      [a, consumer('cache-a')],
      [b, consumer('cache-b')],
    ] as const) {
      expect(
        await bus.drops.count({ event: Registered.subject, consumer: name, reason: 'invalid_payload' }),
      ).toBe(1);
    }
  });
});
