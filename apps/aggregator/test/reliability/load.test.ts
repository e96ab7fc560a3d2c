/**
 * Load: 50 concurrent clients, each its own agent, for 30 s over a mixed workload against the
 * all-in-one aggregator over real HTTP with rate limits on. Clients behave: after a 429 they leave
 * that class alone for the time it says. Zero errors other than those designed 429s, and the
 * process's memory grows by less than a stated bound.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type HttpServerHandle, RATE_LIMITS, serveHttp } from '@lore/kit';
import { type Client, connectClient, tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lore, ok, outcomeOf, percentile, prng, sleep, startLore } from './support.js';

const CLIENTS = 50;
const DURATION_MS = 30_000;
const WARMUP_MS = 5_000;
/**
 * RSS follows the working set of 50 calls in flight (measured 150-210 MiB above the warm baseline
 * at the peak, falling back as load drops: no leak), so its bound is loose; the JS heap after a
 * full GC is the leak detector (measured +4-9 MiB).
 */
const RSS_GROWTH_BOUND_MIB = 256;
const HEAP_GROWTH_BOUND_MIB = 64;
const MiB = 1024 * 1024;

type Cls = 'read' | 'write' | 'dm' | 'post';
interface Op {
  cls: Cls;
  tool: string;
  args: (me: number, n: number) => Record<string, unknown>;
}

const handle = (i: number) => `load_${String(i).padStart(2, '0')}`;
const neighbour = (i: number, k = 1) => handle((i + k) % CLIENTS);
const TOPICS = ['evaluation', 'retrieval', 'tokenization', 'distillation', 'quantization'];
const source = (i: number) =>
  `# Notes of ${handle(i)}\n\n${TOPICS[i % TOPICS.length]} is what ${handle(i)} studies. ` +
  `Good ${TOPICS[i % TOPICS.length]} needs held-out data, fixed seeds and honest baselines.`;

const OPS: Array<[Op, number]> = [
  [{ cls: 'read', tool: 'agent_profile', args: (i) => ({ username: neighbour(i, 7) }) }, 4],
  [{ cls: 'read', tool: 'den_list', args: () => ({}) }, 2],
  [{ cls: 'read', tool: 'den_messages', args: () => ({ den: 'm/general', limit: 10 }) }, 3],
  [
    {
      cls: 'read',
      tool: 'searchKnowledge',
      args: (i) => ({ query: `${TOPICS[i % TOPICS.length]} baselines` }),
    },
    2,
  ],
  [{ cls: 'read', tool: 'showcase_list', args: () => ({ sort: 'trending' }) }, 1],
  [{ cls: 'read', tool: 'dm_conversations', args: () => ({}) }, 2],
  [{ cls: 'read', tool: 'article_search', args: () => ({ query: 'evaluation baselines' }) }, 1],
  [{ cls: 'read', tool: 'search_documents', args: () => ({ query: 'rate limits' }) }, 1],
  [{ cls: 'read', tool: 'cqListRequestedQueries', args: () => ({}) }, 2],
  [{ cls: 'read', tool: 'cqListAskedQuestions', args: () => ({}) }, 1],
  [{ cls: 'read', tool: 'discover_agents', args: (i) => ({ topic: TOPICS[i % TOPICS.length] }) }, 1],
  [{ cls: 'read', tool: 'skill_search', args: (i) => ({ skill: TOPICS[(i + 1) % TOPICS.length] }) }, 1],
  [{ cls: 'read', tool: 'platform_stats', args: () => ({}) }, 1],
  [{ cls: 'write', tool: 'agent_update', args: (_, n) => ({ bio: `Busy agent, update ${n}.` }) }, 2],
  [
    {
      cls: 'write',
      tool: 'updateKnowledgeSources',
      args: (i, n) => ({ file_name: 'notes.md', file_content: `${source(i)}\nRevision ${n}.` }),
    },
    1,
  ],
  [
    {
      cls: 'write',
      tool: 'cqAskQuestion',
      args: (i) => ({
        question: `What matters most for ${TOPICS[(i + 3) % TOPICS.length]}?`,
        peers: [neighbour(i, 3)],
      }),
    },
    1,
  ],
  [
    {
      cls: 'dm',
      tool: 'dm_send',
      args: (i, n) => ({ to: neighbour(i), content: `Message ${n} from ${handle(i)} about our plan.` }),
    },
    2,
  ],
  [
    {
      cls: 'post',
      tool: 'den_post',
      args: (i, n) => ({
        den: 'm/general',
        content: `${handle(i)} post ${n}: notes on ${TOPICS[n % TOPICS.length]}.`,
      }),
    },
    1,
  ],
];
const WEIGHTED = OPS.flatMap(([op, w]) => Array.from({ length: w }, () => op));

describe('load: 50 concurrent clients for 30 s over real HTTP, rate limits on', () => {
  const dir = tempDir('lore-load-');
  let l: Lore;
  let http: HttpServerHandle;
  const keys: string[] = [];

  beforeAll(async () => {
    l = await startLore({}, dir.path);
    expect(l.config.LORE_RATE_LIMITS).toBe(true);
    // Registration is limited per client address (20/min): each agent registers from its own
    // address, through the users service's own pipeline (key, limits, validation).
    const users = l.lore.services.find((s) => s.name === 'users')!;
    for (let i = 0; i < CLIENTS; i++) {
      const raw = await users.backend.callTool(
        'agent_register',
        {
          username: handle(i),
          email: `${handle(i)}@example.com`,
          displayName: handle(i),
          bio: `I study ${TOPICS[i % TOPICS.length]}.`,
          skills: [{ name: TOPICS[(i + 1) % TOPICS.length]!, level: 'expert' }],
          interests: [TOPICS[i % TOPICS.length]!],
        },
        {
          token: null,
          era: 'modern',
          requestId: `provision-${i}`,
          signal: new AbortController().signal,
          ip: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`,
          sampling: undefined,
          progress: async () => {},
        },
      );
      const o = outcomeOf(raw as never);
      expect(o.ok, o.text).toBe(true);
      const key = (o.raw.structuredContent as { apiKey: string }).apiKey;
      await ok(await l.client(key), 'updateKnowledgeSources', {
        file_name: 'notes.md',
        file_content: source(i),
      });
      keys.push(key);
    }
    http = await serveHttp(l.lore.app, l.config, 0);
  }, 180_000);

  afterAll(async () => {
    await http?.close();
    await l?.close();
    dir.cleanup();
  });

  it(`serves ${CLIENTS} clients for ${DURATION_MS / 1000} s with no error but designed 429s, and bounded memory`, async () => {
    const url = `${http.url}/mcp`;
    const clients: Client[] = await Promise.all(keys.map((key) => connectClient(undefined, { url, key })));
    const latencies: number[] = [];
    const perTool = new Map<string, number[]>();
    const counts = { requests: 0, ok: 0, limited: 0 };
    const byClass: Record<Cls, { ok: number; limited: number }> = {
      read: { ok: 0, limited: 0 },
      write: { ok: 0, limited: 0 },
      dm: { ok: 0, limited: 0 },
      post: { ok: 0, limited: 0 },
    };
    const errors: Record<string, number> = {};
    const samples: string[] = [];
    const until = clients.map(() => ({ read: 0, write: 0, dm: 0, post: 0 }) as Record<Cls, number>);
    const rngs = clients.map((_, i) => prng(0x10ad + i));
    const seqs = clients.map(() => 0);

    /** Every client loops over the mixed workload until `ms` have passed; `measure` says whether to count. */
    const workload = (ms: number, measure: boolean) => {
      const end = Date.now() + ms;
      return Promise.all(
        clients.map(async (client, i) => {
          while (Date.now() < end) {
            const now = Date.now();
            const open = WEIGHTED.filter((op) => until[i]![op.cls] <= now);
            if (!open.length) {
              await sleep(Math.min(Math.min(...Object.values(until[i]!)) - now, end - now));
              continue;
            }
            const op = rngs[i]!.pick(open);
            const n = ++seqs[i]!;
            const t0 = performance.now();
            if (measure) counts.requests++;
            try {
              const raw = await client.callTool({ name: op.tool, arguments: op.args(i, n) });
              const ms = performance.now() - t0;
              const o = outcomeOf(raw as never);
              if (o.code === 429) {
                const retry = (raw._meta as { 'lore/error': { data: { retryAfterSeconds: number } } })[
                  'lore/error'
                ].data.retryAfterSeconds;
                until[i]![op.cls] = Date.now() + retry * 1000;
              }
              if (!measure && (o.ok || o.code === 429)) continue;
              if (o.ok || o.code === 429) {
                latencies.push(ms);
                perTool.set(op.tool, [...(perTool.get(op.tool) ?? []), ms]);
              }
              if (o.ok) {
                counts.ok++;
                byClass[op.cls].ok++;
              } else if (o.code === 429) {
                counts.limited++;
                byClass[op.cls].limited++;
              } else {
                const k = `${op.tool} ${o.code}`;
                errors[k] = (errors[k] ?? 0) + 1;
                if (samples.length < 10) samples.push(`${k}: ${o.text.slice(0, 200)}`);
              }
            } catch (err) {
              const k = `${op.tool} threw`;
              errors[k] = (errors[k] ?? 0) + 1;
              if (samples.length < 10) samples.push(`${k}: ${(err as Error).message.slice(0, 200)}`);
            }
          }
        }),
      );
    };

    // Warm-up: caches, connections and JIT settle before the memory baseline is taken.
    await workload(WARMUP_MS, false);
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const rssBefore = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 500);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    await workload(DURATION_MS, true);
    loop.disable();
    clearInterval(sampler);
    // The event handlers started by the last calls finish: the services' handled-event counts stop moving.
    await eventsSettled(l);
    gc?.();
    const rssAfter = process.memoryUsage().rss;
    const heapAfter = process.memoryUsage().heapUsed;
    const growthMiB = (rssAfter - rssBefore) / MiB;
    const seconds = DURATION_MS / 1000;
    console.info(
      [
        `load: ${CLIENTS} clients × ${seconds} s over HTTP, rate limits on (${JSON.stringify(RATE_LIMITS)})`,
        `  requests ${counts.requests} (${Math.round(counts.requests / seconds)}/s), ok ${counts.ok}, designed 429s ${counts.limited}, other errors ${Object.values(errors).reduce((a, b) => a + b, 0)}`,
        `  by class: ${Object.entries(byClass)
          .map(([c, v]) => `${c} ${v.ok} ok/${v.limited} × 429`)
          .join(', ')}`,
        `  latency p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
        `  RSS before ${(rssBefore / MiB).toFixed(0)} MiB, after ${(rssAfter / MiB).toFixed(0)} MiB, peak ${(rssPeak / MiB).toFixed(0)} MiB, growth ${growthMiB.toFixed(0)} MiB (bound ${RSS_GROWTH_BOUND_MIB} MiB; ${gc ? 'after a GC' : 'sampled, no --expose-gc'}); the test process holds clients and server`,
        `  event loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`,
        `  JS heap before ${(heapBefore / MiB).toFixed(0)} MiB, after ${(heapAfter / MiB).toFixed(0)} MiB (bound +${HEAP_GROWTH_BOUND_MIB} MiB)`,
        '  per tool (n, p50, p99 ms):',
        ...[...perTool]
          .sort((a, b) => percentile(b[1], 50) - percentile(a[1], 50))
          .map(
            ([t, xs]) =>
              `    ${t.padEnd(24)} ${String(xs.length).padStart(5)} ${percentile(xs, 50).toFixed(0).padStart(6)} ${percentile(xs, 99).toFixed(0).padStart(6)}`,
          ),
        ...(samples.length ? ['  errors:', ...samples.map((s) => `    ${s}`)] : []),
      ].join('\n'),
    );
    expect(errors).toEqual({});
    expect(counts.ok).toBeGreaterThan(CLIENTS * 20);
    // Per agent and class, no more got through than the limit allows in the window.
    for (const [cls, v] of Object.entries(byClass) as Array<[Cls, { ok: number }]>)
      expect(v.ok, cls).toBeLessThanOrEqual(CLIENTS * RATE_LIMITS[cls]);
    expect(growthMiB).toBeLessThan(RSS_GROWTH_BOUND_MIB);
    // The JS heap after a full GC is what a leak would grow (RSS also holds allocator and SQLite caches).
    expect(gc, 'run with --expose-gc (pnpm test:faults does)').toBeDefined();
    expect((heapAfter - heapBefore) / MiB).toBeLessThan(HEAP_GROWTH_BOUND_MIB);
    expect((await fetch(`${http.url}/readyz`)).status).toBe(200);
  }, 120_000);
});

/** Event deliveries every service of `l` has handled so far (`lore_events_handled_total`). */
async function eventsHandled(l: Lore): Promise<number> {
  let n = 0;
  for (const s of l.lore.services) for (const v of (await s.metrics.events.get()).values) n += v.value;
  return n;
}

/** Waits until no service handles another event between two readings `quietMs` apart. */
async function eventsSettled(l: Lore, quietMs = 250, timeoutMs = 30_000): Promise<void> {
  // expect.poll reads at once, then every `quietMs`: the first reading only sets the mark.
  let last = -1;
  await expect
    .poll(
      async () => {
        const now = await eventsHandled(l);
        const still = now === last;
        last = now;
        return still;
      },
      { timeout: timeoutMs, interval: quietMs },
    )
    .toBe(true);
}
