import { monitorEventLoopDelay } from 'node:perf_hooks';
import { call, compressionBombPdf, deeplyNestedHtml, ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, startEnv } from './helpers.js';

/**
 * Hostile uploads cost their sender a 400 and nobody else anything: while one agent uploads
 * compression-bomb PDFs and 40,000 nested divs, another agent's calls and `/healthz` keep
 * their latency, and the event loop's delay stays small. Slow (the bombs run to their time
 * limit), so it runs with `pnpm test:faults`.
 */
describe('ingest bombs', () => {
  let t: Env;

  beforeAll(async () => {
    t = await startEnv({ LORE_MAX_BODY_BYTES: String(4 * 1024 * 1024) });
  });
  afterAll(() => t.close());

  it('refuse with a 400 naming the limit while other calls and the event loop stay fast', async () => {
    const mallory = await t.register('mallory');
    const alice = await t.register('alice');
    await ok(alice.client, 'updateKnowledgeSources', {
      file_name: 'bread.md',
      file_content: '# Bread\n\nSourdough rises with wild yeast.\n',
    });
    const bomb = Buffer.from(compressionBombPdf({ inflatedMb: 64, pages: 50 })).toString('base64');
    const deep = deeplyNestedHtml(40_000);

    // Baseline: the other agent's calls and the event loop on a node with no bombs.
    const quiet = monitorEventLoopDelay({ resolution: 10 });
    quiet.enable();
    const baseline: number[] = [];
    for (let i = 0; i < 40; i++) {
      baseline.push(...(await sampleLatencies(alice, 5)));
      await new Promise((r) => setTimeout(r, 20));
    }
    quiet.disable();

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const attacks = Promise.all([
      call(mallory.client, 'updateKnowledgeSources', { file_name: 'bomb.pdf', file_content: bomb }),
      call(mallory.client, 'updateKnowledgeSources', { file_name: 'bomb2.pdf', file_content: bomb }),
      call(mallory.client, 'updateKnowledgeSources', { file_name: 'deep.html', file_content: deep }),
    ]);
    let settled = false;
    void attacks.finally(() => {
      settled = true;
    });
    const during: number[] = [];
    while (!settled) {
      during.push(...(await sampleLatencies(alice, 5)));
      // Paced like real traffic, so the loop measures latency rather than saturating the node.
      await new Promise((r) => setTimeout(r, 20));
    }
    const results = await attacks;
    delay.disable();

    for (const r of results) {
      expect(r.error?.code).toBe(400);
      expect(r.error?.data?.field).toBe('file_content');
      expect(r.text).toMatch(/\((?:time|memory|nesting|pages) limit\)/);
    }
    expect(results[2]!.text).toMatch(/nesting limit/);
    const loopP99 = delay.percentile(99) / 1e6;
    const callP99 = percentile(during, 99);
    process.stderr.write(
      `ingest bombs: event-loop p99 ${loopP99.toFixed(1)} ms during, ${(quiet.percentile(99) / 1e6).toFixed(1)} ms ` +
        `before; other calls p99 ${callP99.toFixed(1)} ms during (${during.length} calls), ` +
        `${percentile(baseline, 99).toFixed(1)} ms before\n`,
    );
    expect(during.length).toBeGreaterThan(10);
    // What the bombs add, over the same node's figures without them: on a busy machine the
    // quiet baseline itself can exceed 100 ms, so the bound is on the difference.
    expect(loopP99 - quiet.percentile(99) / 1e6).toBeLessThan(100);
    expect(callP99 - percentile(baseline, 99)).toBeLessThan(100);
    // The node still parses after the bombs.
    const after = await ok<{ chunks: number }>(alice.client, 'updateKnowledgeSources', {
      file_name: 'page.html',
      file_content: '<h1>Rye</h1><p>Rye bread is dense and sour.</p>',
    });
    expect(after.data.chunks).toBeGreaterThan(0);
  });

  async function sampleLatencies(agent: { client: Env['anon'] }, n: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const health = await t.knowledge.fetch(new Request('http://127.0.0.1/healthz'));
      expect(health.status).toBe(200);
      await ok(agent.client, 'listKnowledgeSources', {});
      out.push(performance.now() - t0);
    }
    return out;
  }
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
