import { describe, expect, it } from 'vitest';
import type { PreparedEnd, PreparedPart } from './prepare-source.js';
import { PreparedStream } from './prepared-stream.js';

const part = (start: number, n: number): PreparedPart => ({
  start,
  texts: Array.from({ length: n }, (_, k) => `text ${start + k}`),
  headings: Array.from({ length: n }, (_, k) => JSON.stringify([`h${start + k}`])),
  terms: Array.from({ length: n }, (_, k) => `term ${start + k}`),
  lengths: Array.from({ length: n }, () => 2),
});

/** A stream whose parts and end the test sends by hand. */
function controlled() {
  let send!: (p: PreparedPart) => void;
  let finish!: (end: PreparedEnd) => void;
  let fail!: (err: Error) => void;
  const stream = new PreparedStream(
    (onPart) =>
      new Promise<PreparedEnd>((resolve, reject) => {
        send = onPart;
        finish = resolve;
        fail = reject;
      }),
  );
  return { stream, send: (p: PreparedPart) => send(p), finish, fail };
}

describe('PreparedStream', () => {
  it('waits for a part, then hands over every part that has arrived, merged up to the bound', async () => {
    const { stream, send, finish } = controlled();
    const first = stream.next(400);
    send(part(0, 8));
    expect(await first).toEqual(part(0, 8));
    send(part(8, 16));
    send(part(24, 32));
    send(part(56, 64));
    // 16 + 32 fit in 50, 64 more do not: the rest waits for the next call.
    expect(await stream.next(50)).toEqual(merge(part(8, 16), part(24, 32)));
    expect(await stream.next(50)).toEqual(part(56, 64));
    finish({ keywords: ['k'], chunks: 120 });
    expect(await stream.next(400)).toBeNull();
    expect(await stream.end()).toEqual({ keywords: ['k'], chunks: 120 });
  });

  it('says whether next would return at once, waiting a bounded time, without taking a part', async () => {
    const { stream, send, fail } = controlled();
    expect(await stream.ready(5)).toBe(false);
    const waiting = stream.ready(60_000);
    send(part(0, 8));
    expect(await waiting).toBe(true);
    expect(await stream.ready(0)).toBe(true);
    expect(await stream.next(400)).toEqual(part(0, 8));
    expect(await stream.ready(5)).toBe(false);
    fail(new Error('refused'));
    // Over is ready too: next gives the error.
    expect(await stream.ready(60_000)).toBe(true);
    await expect(stream.next(400)).rejects.toThrow('refused');
  });

  it('gives every part before the end in all()', async () => {
    const { stream, send, finish } = controlled();
    send(part(0, 8));
    send(part(8, 16));
    const all = stream.all();
    send(part(24, 3));
    finish({ keywords: [], chunks: 27 });
    const { parts, end } = await all;
    expect(parts.flatMap((p) => p.texts)).toEqual(part(0, 27).texts);
    expect(end).toEqual({ keywords: [], chunks: 27 });
  });

  it('rejects next and end with the parse error, after the parts that came before it', async () => {
    const { stream, send, fail } = controlled();
    send(part(0, 8));
    fail(new Error('over the time limit'));
    expect(await stream.next(400)).toEqual(part(0, 8));
    await expect(stream.next(400)).rejects.toThrow('over the time limit');
    await expect(stream.end()).rejects.toThrow('over the time limit');
  });

  it('leaves no unhandled rejection when nobody reads a failed stream', async () => {
    const unhandled: unknown[] = [];
    const record = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', record);
    try {
      controlled().fail(new Error('refused'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});

function merge(a: PreparedPart, b: PreparedPart): PreparedPart {
  return {
    start: a.start,
    texts: [...a.texts, ...b.texts],
    headings: [...a.headings, ...b.headings],
    terms: [...a.terms, ...b.terms],
    lengths: [...a.lengths, ...b.lengths],
  };
}
