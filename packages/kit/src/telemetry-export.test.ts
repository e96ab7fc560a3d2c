import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTelemetry, withSpan } from './telemetry.js';

// Its own file: startTelemetry registers a global tracer provider for the rest of the process.
describe('trace context with an exporter', () => {
  const received: string[] = [];
  const collector = createServer((req, res) => {
    received.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  afterAll(() => collector.close());

  it('continues the caller’s trace in the exported span and hands the span’s id on', async () => {
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const { port } = collector.address() as AddressInfo;
    const stop = await startTelemetry(`http://127.0.0.1:${port}/`, 'telemetry-test');
    expect(stop).toBeDefined();
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const seen = await withSpan(
      'test.call',
      {},
      { requestId: 'r1', traceparent: incoming },
      async (ctx, span) => {
        expect(span.isRecording()).toBe(true);
        return { traceparent: ctx.traceparent, spanId: span.spanContext().spanId };
      },
    );
    // The propagator wrote this span's own context: same trace, the exported span's id.
    expect(seen.traceparent).toBe(`00-0af7651916cd43dd8448eb211c80319c-${seen.spanId}-01`);
    await stop?.();
    expect(received).toContain('/v1/traces');
    // Exporting off again: back to the cheap ids, still in the caller's trace.
    const after = await withSpan(
      'test.call',
      {},
      { requestId: 'r2', traceparent: incoming },
      async (ctx, span) => {
        expect(span.isRecording()).toBe(false);
        return ctx.traceparent;
      },
    );
    expect(after).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  });
});
