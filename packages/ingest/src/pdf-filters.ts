import { constants, createInflate, inflateSync } from 'node:zlib';
import { hexValue, isPdfSpace } from './pdf-bytes.js';
import type { StringScan } from './pdf-strings.js';

/**
 * PDF's stream filters (Flate, LZW, ASCIIHex, ASCII85, RunLength) as the scan runs them: each
 * stage counts what it produces against a budget and stops at the first byte over it.
 */

export type Filter = 'flate' | 'lzw' | 'hex' | 'a85' | 'rl' | 'opaque' | 'unknown';

export const FILTERS: Record<string, Filter> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  ASCIIHexDecode: 'hex',
  AHx: 'hex',
  ASCII85Decode: 'a85',
  A85: 'a85',
  RunLengthDecode: 'rl',
  RL: 'rl',
  // Image codecs: their output is pixels, bounded by the picture's size, and nothing decodes
  // it further, so a chain ends there. Any other name (Crypt among them) pdf.js skips, going on
  // with the next filter on the same bytes, and so does the scan.
  DCTDecode: 'opaque',
  DCT: 'opaque',
  JPXDecode: 'opaque',
  JPX: 'opaque',
  JBIG2Decode: 'opaque',
  CCITTFaxDecode: 'opaque',
  CCF: 'opaque',
};

/** Decoding a stream produced more than its budget (the stream's cap, or what is left of the file's). */
export class OverBudget extends Error {}

export const isDecodable = (f: Filter) =>
  f === 'flate' || f === 'lzw' || f === 'hex' || f === 'a85' || f === 'rl';

/** zlib's two header bytes, as pdf.js checks them before it inflates. */
export function isZlibHeader(data: Uint8Array): boolean {
  const cmf = data[0];
  const flg = data[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0;
}

/**
 * Decodes `data` through `chain`, each stage's output feeding the next, and returns how many
 * bytes the last stage produced. Throws `OverBudget` as soon as any stage produces more than
 * `budget`. The last stage's output is only counted (and read for strings), never kept.
 */
export async function decodeChain(
  data: Uint8Array,
  chain: Filter[],
  budget: number,
  strings?: StringScan,
  earlyChange = 1,
): Promise<number> {
  let input = data;
  for (let i = 0; i < chain.length; i++) {
    const last = i === chain.length - 1;
    const sink = new Sink(budget, last, strings);
    const filter = chain[i]!;
    if (filter === 'flate') {
      const small = inflateSmall(input, Math.min(budget, SMALL_STREAM_BYTES));
      if (small) sink.write(small);
      else await inflateInto(input, sink);
    } else if (filter === 'lzw') lzwDecode(input, sink, earlyChange);
    else if (filter === 'hex') hexDecode(input, sink);
    else if (filter === 'a85') a85Decode(input, sink);
    else rlDecode(input, sink);
    sink.flush();
    if (last) return sink.bytes;
    input = sink.collected();
  }
  return 0;
}

const SCRATCH = new Uint8Array(65_536);

/** Where a stage's output goes: counted against the budget, kept for the next stage or read for strings. */
class Sink {
  bytes = 0;
  private readonly parts: Uint8Array[] = [];
  // The filters written in JavaScript fill it synchronously and the stage flushes it before
  // anything else runs, so one buffer serves every sink.
  private readonly pending = SCRATCH;
  private used = 0;

  constructor(
    private readonly budget: number,
    private readonly last: boolean,
    private readonly strings?: StringScan,
  ) {}

  write(chunk: Uint8Array) {
    this.bytes += chunk.length;
    if (this.bytes > this.budget) throw new OverBudget();
    if (!this.last) this.parts.push(chunk);
    else this.strings?.push(chunk);
  }

  /** One byte at a time, from the filters written in JavaScript, buffered into chunks. */
  byte(b: number) {
    this.pending[this.used++] = b;
    if (this.used === this.pending.length) this.flush();
  }

  flush() {
    if (this.used === 0) return;
    const chunk = this.last ? this.pending.subarray(0, this.used) : this.pending.slice(0, this.used);
    this.used = 0;
    this.write(chunk);
  }

  collected(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

/**
 * Most streams of a real document inflate to a few KiB: they are inflated in one synchronous
 * call that stops past this many bytes (or at an error), and only the others are streamed.
 */
const SMALL_STREAM_BYTES = 1024 * 1024;

/** `data` inflated in one call, or undefined when it inflates to more than `max` bytes or fails. */
function inflateSmall(data: Uint8Array, max: number): Buffer | undefined {
  try {
    return inflateSync(data, { maxOutputLength: Math.max(1, max), finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return undefined;
  }
}

/**
 * Inflates from the start of `data` until zlib's end of stream (or an error: pdf.js reads no
 * further either), counting as it goes, and stops the inflater at the first byte over budget.
 */
function inflateInto(data: Uint8Array, sink: Sink): Promise<void> {
  return new Promise((resolve, reject) => {
    const z = createInflate({ chunkSize: 256 * 1024 });
    let done = false;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      z.removeAllListeners('data');
      z.destroy();
      if (err) reject(err);
      else resolve();
    };
    z.on('data', (chunk: Buffer) => {
      if (done) return;
      try {
        sink.write(chunk);
      } catch (err) {
        finish(err);
      }
    });
    z.on('end', () => finish());
    // Corrupt or truncated data: what was inflated until then is what pdf.js gets too.
    z.on('error', () => finish());
    let offset = 0;
    const pump = () => {
      while (!done && offset < data.length) {
        const end = Math.min(data.length, offset + 65_536);
        const more = z.write(data.subarray(offset, end));
        offset = end;
        if (!more) {
          z.once('drain', pump);
          return;
        }
      }
      if (!done) z.end();
    };
    pump();
  });
}

function hexDecode(data: Uint8Array, sink: Sink) {
  let high = -1;
  for (const b of data) {
    if (b === 0x3e) break;
    const v = hexValue(b);
    if (v === -1) continue;
    if (high === -1) high = v;
    else {
      sink.byte((high << 4) | v);
      high = -1;
    }
  }
  if (high !== -1) sink.byte(high << 4);
}

function a85Decode(data: Uint8Array, sink: Sink) {
  const group: number[] = [];
  let i = data[0] === 0x3c && data[1] === 0x7e ? 2 : 0;
  for (; i < data.length; i++) {
    const b = data[i]!;
    if (b === 0x7e) break;
    if (isPdfSpace(b)) continue;
    if (b === 0x7a && group.length === 0) {
      for (let k = 0; k < 4; k++) sink.byte(0);
      continue;
    }
    if (b < 0x21 || b > 0x75) continue;
    group.push(b - 0x21);
    if (group.length === 5) {
      emitA85(group, 4, sink);
      group.length = 0;
    }
  }
  if (group.length > 1) {
    const n = group.length - 1;
    while (group.length < 5) group.push(84);
    emitA85(group, n, sink);
  }
}

function emitA85(group: number[], n: number, sink: Sink) {
  let v = 0;
  for (const d of group) v = v * 85 + d;
  for (let k = 0; k < n; k++) sink.byte(Math.floor(v / 256 ** (3 - k)) & 0xff);
}

function rlDecode(data: Uint8Array, sink: Sink) {
  let i = 0;
  while (i < data.length) {
    const n = data[i++]!;
    if (n === 128) break;
    if (n < 128) {
      for (let k = 0; k <= n && i < data.length; k++) sink.byte(data[i++]!);
    } else {
      if (i >= data.length) break;
      const b = data[i++]!;
      for (let k = 0; k < 257 - n; k++) sink.byte(b);
    }
  }
}

/**
 * PDF's LZW as pdf.js decodes it (early change 1 unless /DecodeParms says 0: the code width
 * grows when the next code plus that reaches a power of two), counted byte by byte.
 */
function lzwDecode(data: Uint8Array, sink: Sink, earlyChange: number) {
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let c = 0; c < 256; c++) {
    prefix[c] = -1;
    suffix[c] = c;
    length[c] = 1;
  }
  let next = 258;
  let width = 9;
  let previous = -1;
  let bitBuf = 0;
  let bits = 0;
  const out = new Uint8Array(4096);
  const emit = (code: number): number => {
    const n = length[code]!;
    for (let c = code, k = n - 1; k >= 0; k--, c = prefix[c]!) out[k] = suffix[c]!;
    for (let k = 0; k < n; k++) sink.byte(out[k]!);
    return out[0]!;
  };
  for (let i = 0; i < data.length; ) {
    while (bits < width && i < data.length) {
      bitBuf = ((bitBuf << 8) | data[i++]!) >>> 0;
      bits += 8;
    }
    if (bits < width) break;
    const code = (bitBuf >>> (bits - width)) & ((1 << width) - 1);
    bits -= width;
    bitBuf &= (1 << bits) - 1;
    if (code === 256) {
      next = 258;
      width = 9;
      previous = -1;
      continue;
    }
    if (code === 257) break;
    if (previous === -1) {
      if (code > 255) break;
      emit(code);
      previous = code;
      continue;
    }
    let first: number;
    if (code < next) first = emit(code);
    else if (code === next) {
      // The code being defined: the previous string and its own first byte.
      const head = emit(previous);
      sink.byte(head);
      first = head;
    } else break;
    if (next < 4096) {
      prefix[next] = previous;
      suffix[next] = first;
      length[next] = Math.min(4095, length[previous]! + 1);
      next++;
    }
    if (next + earlyChange >= 1 << width && width < 12) width++;
    previous = code;
  }
}
