import { defineEvent } from '@lore/schema/events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateApiKey } from './auth.js';
import { createService } from './service.js';
import { openServiceStore } from './store.js';
import { nextTraceparent } from './telemetry.js';
import { appFetch, call, connectClient, memoryAgentKeys, testDeps } from './testing/index.js';
import { toolsFor } from './tool.js';

const Noted = defineEvent('lore.test.note.written', z.object({ text: z.string() }));

describe('trace context', () => {
  it('continues the caller’s trace with a new span id, or starts one', () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const next = nextTraceparent(tp);
    expect(next).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(next).not.toBe(tp);
    expect(nextTraceparent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(nextTraceparent('garbage')).toMatch(/^00-[0-9a-f]{32}-/);
  });

  it('gives every hop its own span id and every new trace its own trace id', () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const spans = new Set(Array.from({ length: 1000 }, () => nextTraceparent(tp).split('-')[2]));
    const traces = new Set(Array.from({ length: 1000 }, () => nextTraceparent().split('-')[1]));
    expect(spans.size).toBe(1000);
    expect(traces.size).toBe(1000);
  });

  it('carries the call’s trace id into the events the call causes', async () => {
    const env = testDeps();
    const key = generateApiKey();
    const store = await openServiceStore(env.deps, 'notes', {});
    const tool = toolsFor<null>();
    const svc = createService({
      name: 'notes',
      version: '1',
      tools: [
        tool({
          name: 'note',
          title: 'Note',
          description: 'Writes a note event.',
          input: z.object({ text: z.string() }),
          output: z.object({ ok: z.boolean() }),
          annotations: {
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: false,
          },
          rateClass: 'write',
          async handler({ text }) {
            await store.outbox.transaction(async (_tx, emit) => {
              emit(Noted, { text });
            });
            return { text: 'ok', data: { ok: true } };
          },
        }),
      ],
      ports: null,
      deps: env.deps,
      agentKeys: memoryAgentKeys({ [key]: { id: 'a1', handle: 'alice', node: 'n' } }),
      db: store.db,
      outbox: store.outbox,
    });
    await svc.start();
    const seen: Array<string | undefined> = [];
    await env.deps.bus.subscribe({ consumer: 'trace-test', subjects: [Noted.subject] }, async (e) => {
      seen.push(e.traceparent);
    });
    const c = await connectClient(appFetch(svc.app), {
      key,
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    await call(c, 'note', { text: 'hello' });
    await expect.poll(() => seen.length, { timeout: 3000 }).toBe(1);
    expect(seen[0]).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    await svc.stop();
    await env.cleanup();
  });
});
