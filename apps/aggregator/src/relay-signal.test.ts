import { describe, expect, it } from 'vitest';
import { deadlines } from './deadlines.js';
import { Attempt } from './relay.js';

/** A caller whose going away the test controls, counting who listens. */
function caller() {
  const listeners = new Set<(reason: unknown) => void>();
  return {
    listeners,
    whenGone(listener: (reason: unknown) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    leave(reason: unknown) {
      for (const l of [...listeners]) l(reason);
    },
  };
}

/** What undici does with a dispatched request: connects it, and records an abort. */
function connect(attempt: Attempt) {
  const seen: { aborted?: Error } = {};
  attempt.onConnect((err) => {
    seen.aborted = err;
    if (err) attempt.onError(err);
  });
  return seen;
}

const JSON_HEADERS = [Buffer.from('Content-Type'), Buffer.from('application/json')];

describe("a relayed attempt's limit", () => {
  it('is aborted with a TimeoutError when the upstream timeout passes', async () => {
    const c = caller();
    const attempt = new Attempt(c, 30);
    const seen = connect(attempt);
    const err = (await attempt.answer.catch((e) => e)) as DOMException;
    expect(err.name).toBe('TimeoutError');
    expect(seen.aborted?.name).toBe('TimeoutError');
    expect(c.listeners.size).toBe(0);
  });

  it("is aborted with the caller's reason when the caller goes away, even before it is connected", async () => {
    const c = caller();
    const attempt = new Attempt(c, 60_000);
    const seen = connect(attempt);
    c.leave(new Error('client closed'));
    expect(String(await attempt.answer.catch((e) => e))).toMatch(/client closed/);
    expect(seen.aborted?.message).toMatch(/client closed/);

    const queued = new Attempt(c, 60_000);
    c.leave(new Error('gone while queued'));
    // Fails at once, and the request is aborted when undici hands it a connection.
    expect(String(await queued.answer.catch((e) => e))).toMatch(/gone while queued/);
    expect(connect(queued).aborted?.message).toMatch(/gone while queued/);
    expect(c.listeners.size).toBe(0);
  });

  it('once answered, neither the timeout nor the caller aborts it, and it leaves nothing behind', async () => {
    const c = caller();
    const pending = deadlines.pending;
    const attempt = new Attempt(c, 20);
    const seen = connect(attempt);
    attempt.onHeaders(200, JSON_HEADERS, () => {});
    attempt.onData(Buffer.from('{"jsonrpc":"2.0",'));
    attempt.onData(Buffer.from('"id":1,"result":{}}'));
    attempt.onComplete();
    const answer = await attempt.answer;
    expect(answer.kind).toBe('json');
    expect(answer.kind === 'json' && answer.body.toString()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(c.listeners.size).toBe(0);
    expect(deadlines.pending).toBe(pending);
    c.leave(new Error('late'));
    await new Promise((r) => setTimeout(r, 60));
    expect(seen.aborted).toBeUndefined();
  });

  it('fails on a 5xx or an answer that is neither JSON nor an event stream (the attempt may be retried)', async () => {
    const failed = new Attempt(caller(), 60_000);
    connect(failed);
    failed.onHeaders(503, [Buffer.from('content-type'), Buffer.from('text/plain')], () => {});
    failed.onData(Buffer.from('unavailable'));
    failed.onComplete();
    expect(String(await failed.answer.catch((e) => e))).toMatch(/HTTP 503/);
    const html = new Attempt(caller(), 60_000);
    connect(html);
    html.onHeaders(200, [Buffer.from('content-type'), Buffer.from('text/html')], () => {});
    html.onComplete();
    expect(String(await html.answer.catch((e) => e))).toMatch(/HTTP 200/);
  });

  it('hands an event stream on as it comes, and holds the limit until it ends', async () => {
    const c = caller();
    const attempt = new Attempt(c, 60_000);
    connect(attempt);
    attempt.onHeaders(200, [Buffer.from('content-type'), Buffer.from('text/event-stream')], () => {});
    const answer = await attempt.answer;
    expect(answer.kind).toBe('stream');
    if (answer.kind !== 'stream') return;
    expect(c.listeners.size).toBe(1);
    attempt.onData(Buffer.from('data: 1\n\n'));
    attempt.onData(Buffer.from('data: 2\n\n'));
    attempt.onComplete();
    expect(await new Response(answer.body).text()).toBe('data: 1\n\ndata: 2\n\n');
    expect(c.listeners.size).toBe(0);
  });
});
