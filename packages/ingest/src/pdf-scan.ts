import { constants, createInflate, inflateSync } from 'node:zlib';
import { formatBytes, ParseLimitError, type ParseLimits } from './limits.js';

/** The limits a PDF's streams are checked against before pdf.js reads any of them. */
export type PdfScanLimits = Pick<
  ParseLimits,
  'maxStreamBytes' | 'maxInflatedBytes' | 'maxTextChars' | 'maxObjects'
>;

/** What a scan found: streams seen, streams decoded, bytes they decoded to, objects. */
export interface PdfScan {
  streams: number;
  decoded: number;
  inflatedBytes: number;
  largestStreamBytes: number;
  objects: number;
}

type Filter = 'flate' | 'lzw' | 'hex' | 'a85' | 'rl' | 'opaque' | 'unknown';

const FILTERS: Record<string, Filter> = {
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
class OverBudget extends Error {}

/**
 * Reads every stream of a PDF the way pdf.js would find it (`stream` after a dictionary, data
 * from the next line), decodes the compressed ones (Flate, LZW, ASCIIHex, ASCII85, RunLength,
 * in the order their `/Filter` names) and counts the bytes as they are produced: a stream that
 * would decode to more than `maxStreamBytes`, or a file whose streams together would decode to
 * more than `maxInflatedBytes`, is refused with an `inflated` ParseLimitError at the first byte
 * over, having held at most one stream's budget in memory (nothing at all for the last Flate
 * of a chain, which is only counted). Content-like streams are also read for their strings
 * while they inflate: a string longer than `maxTextChars` is refused (`size`), before pdf.js
 * would build it. Object streams and cross-reference streams count like any other, and the
 * file's objects (those declared in object streams included) against `maxObjects`.
 *
 * The data of a compressed stream is decoded from where it starts to where its own encoding
 * ends (zlib's end of stream, a filter's end-of-data mark), whatever `/Length` says, so a wrong
 * length or an `endstream` hidden in the data does not shorten what is counted. A stream whose
 * data starts with a zlib header is inflated whatever its dictionary says. Encrypted files are
 * the exception: their stream data cannot be read before decryption, so what they inflate to
 * is bounded by the parser's memory and time limits alone.
 */
export async function scanPdfStreams(bytes: Uint8Array, limits: PdfScanLimits): Promise<PdfScan> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('latin1');
  const scan: PdfScan = { streams: 0, decoded: 0, inflatedBytes: 0, largestStreamBytes: 0, objects: 0 };

  scan.objects = countMatches(text, /(?<![0-9])[0-9]+[ \t\r\n\f\0]+[0-9]+[ \t\r\n\f\0]+obj(?![A-Za-z0-9])/g);
  checkObjects(scan.objects, limits.maxObjects);

  // pdf.js skips the rest of the `stream` line and reads the data from the next one.
  const keyword = /(?<![A-Za-z0-9#])stream[^\r\n]*(?:\r\n|\r|\n)/g;
  const file: PdfText = { text, objects: objectIndex(text), ends: endMarks(text) };
  let regionStart = 0;
  for (let m = keyword.exec(text); m; m = keyword.exec(text)) {
    const at = m.index;
    const dataStart = at + m[0].length;
    // The text since the previous stream's data, from its `endstream` on: each byte is read once.
    const region = text.slice(regionStart, at);
    const dict = region.slice(Math.max(0, region.lastIndexOf('endstream')));
    regionStart = dataStart;
    scan.streams++;
    if (/\/ObjStm(?![A-Za-z0-9])/.test(dict)) {
      for (const n of dict.matchAll(/\/N[ \t\r\n\f\0]+([0-9]+)/g)) scan.objects += Number(n[1]);
      checkObjects(scan.objects, limits.maxObjects);
    }
    const chains = filterChains(dict, file);
    const data = buf.subarray(dataStart, rawEnd(file, dict, dataStart, chains));
    if (isZlibHeader(data) && !chains.some((c) => c[0] === 'flate')) chains.push(['flate']);
    const decodable = chains.filter((c) => c.length > 0 && isDecodable(c[0]!));
    if (decodable.length === 0) continue;
    const early = /\/EarlyChange[ \t\r\n\f\0]+0(?![0-9])/.test(dict) ? 0 : 1;
    const textLike = !/\/(?:Image|Metadata|EmbeddedFile|XML)(?![A-Za-z0-9])/.test(dict);
    let most = 0;
    for (const chain of decodable) {
      const budget = Math.min(limits.maxStreamBytes, limits.maxInflatedBytes - scan.inflatedBytes);
      const strings = textLike ? new StringScan(limits.maxTextChars) : undefined;
      let produced: number;
      try {
        produced = await decodeChain(data, chain, budget, strings, early);
      } catch (err) {
        if (!(err instanceof OverBudget)) throw err;
        throw budget < limits.maxStreamBytes
          ? new ParseLimitError(
              'inflated',
              `the PDF's compressed streams inflate to more than ${formatBytes(limits.maxInflatedBytes)} together`,
            )
          : new ParseLimitError(
              'inflated',
              `a compressed stream of the PDF (at byte ${at}) inflates to more than ${formatBytes(limits.maxStreamBytes)}`,
            );
      }
      most = Math.max(most, produced);
    }
    scan.decoded++;
    scan.inflatedBytes += most;
    scan.largestStreamBytes = Math.max(scan.largestStreamBytes, most);
  }
  return scan;
}

/** The file as text, with what the scan looks up in it more than once. */
interface PdfText {
  text: string;
  /** `n g` → the text that follows `n g obj` (a short prefix of the object's body). */
  objects: () => Map<string, string>;
  /** The first `endstream` at or after a position, or -1. */
  ends: (from: number) => number;
}

const WS = '[ \\t\\r\\n\\f\\0]';

/** The objects of the file by number, indexed on first use in one pass. */
function objectIndex(text: string): () => Map<string, string> {
  let index: Map<string, string> | undefined;
  return () => {
    if (index) return index;
    index = new Map();
    const header = new RegExp(`(?<![0-9])([0-9]+)${WS}+([0-9]+)${WS}+obj(?![A-Za-z0-9])`, 'g');
    for (let m = header.exec(text); m; m = header.exec(text)) {
      const body = m.index + m[0].length;
      index.set(`${Number(m[1])} ${Number(m[2])}`, text.slice(body, body + 512));
    }
    return index;
  };
}

/** `endstream` positions for positions that only grow: one pass over the file in all. */
function endMarks(text: string): (from: number) => number {
  let found = -1;
  let none = false;
  return (from) => {
    if (found >= from) return found;
    if (none) return -1;
    found = text.indexOf('endstream', from);
    if (found === -1) none = true;
    return found;
  };
}

/** What an indirect reference `n g R` in `value` points to, or undefined. */
function resolve(file: PdfText, value: string): string | undefined {
  const [num, gen] = value.split(new RegExp(`${WS}+`));
  return file.objects().get(`${Number(num)} ${Number(gen)}`);
}

/**
 * Where the stream's data can end for pdf.js. Flate needs no end (zlib stops at its own end of
 * stream, so it gets the rest of the file); the other filters end at their end-of-data marks,
 * but a stream that lacks one would run them to the end of the file once per stream: their data
 * ends at the first `endstream`, or further when `/Length` (direct or looked up) says so
 * (pdf.js reads `/Length` bytes when `endstream` follows them).
 */
function rawEnd(file: PdfText, dict: string, dataStart: number, chains: Filter[][]): number {
  const { text } = file;
  if (chains.every((c) => c[0] === 'flate' || c[0] === undefined)) return text.length;
  const ref = new RegExp(`/Length${WS}+([0-9]+${WS}+[0-9]+${WS}+R)`).exec(dict)?.[1];
  const lengthText = ref ? resolve(file, ref) : /\/Length[ \t\r\n\f\0]+([0-9]+)/.exec(dict)?.[1];
  const length = Number(/^[ \t\r\n\f\0]*([0-9]+)/.exec(lengthText ?? '')?.[1] ?? 0);
  const end = file.ends(dataStart);
  return Math.min(text.length, Math.max(end === -1 ? dataStart + length : end, dataStart + length));
}

function checkObjects(objects: number, max: number) {
  if (objects > max)
    throw new ParseLimitError(
      'size',
      `the PDF has more than ${max.toLocaleString('en-US')} objects (${objects.toLocaleString('en-US')})`,
    );
}

function countMatches(text: string, re: RegExp): number {
  let n = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) n++;
  return n;
}

const isDecodable = (f: Filter) => f === 'flate' || f === 'lzw' || f === 'hex' || f === 'a85' || f === 'rl';

/** zlib's two header bytes, as pdf.js checks them before it inflates. */
function isZlibHeader(data: Uint8Array): boolean {
  const cmf = data[0];
  const flg = data[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0;
}

/**
 * Every `/Filter` in the text before a stream (its dictionary, and whatever else lies between
 * it and the previous stream): one is what pdf.js will use, and decoding each that differs
 * costs little. An indirect `/Filter n 0 R` is looked up.
 */
function filterChains(dict: string, file: PdfText): Filter[][] {
  const chains: Filter[][] = [];
  const seen = new Set<string>();
  const filter =
    /\/Filter[ \t\r\n\f\0]*(\/[^\s/[\]<>()%]+|\[[^\]]*\]|[0-9]+[ \t\r\n\f\0]+[0-9]+[ \t\r\n\f\0]+R)/g;
  for (const m of dict.matchAll(filter)) {
    let value = m[1]!;
    if (value.endsWith('R')) {
      const target = /^[ \t\r\n\f\0]*(\/[^\s/[\]<>()%]+|\[[^\]]*\])/.exec(resolve(file, value) ?? '');
      if (!target) continue;
      value = target[1]!;
    }
    if (seen.has(value)) continue;
    seen.add(value);
    const names = [...value.matchAll(/\/([^\s/[\]<>()%]+)/g)]
      .map((n) => FILTERS[n[1]!] ?? 'unknown')
      .filter((f) => f !== 'unknown');
    const opaque = names.indexOf('opaque');
    chains.push(opaque === -1 ? names : names.slice(0, opaque));
  }
  return chains;
}

/**
 * Decodes `data` through `chain`, each stage's output feeding the next, and returns how many
 * bytes the last stage produced. Throws `OverBudget` as soon as any stage produces more than
 * `budget`. The last stage's output is only counted (and read for strings), never kept.
 */
async function decodeChain(
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

const isPdfSpace = (b: number) =>
  b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0;

/** PDF's delimiters: ( ) < > [ ] { } / %. */
const isDelimiter = (b: number) =>
  b === 0x28 ||
  b === 0x29 ||
  b === 0x3c ||
  b === 0x3e ||
  b === 0x5b ||
  b === 0x5d ||
  b === 0x7b ||
  b === 0x7d ||
  b === 0x2f ||
  b === 0x25;

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
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

/**
 * Reads decoded stream data as PDF content (strings, comments, dictionaries) and throws a
 * `size` ParseLimitError when one string holds more than `max` characters. An inline image's
 * data (`ID` … `EI`) is passed over as pdf.js passes over it. Stops reading a stream at the
 * first other byte outside a string that content never has (binary data: a font, a picture),
 * where parentheses mean nothing: a content stream with such a byte before a long string is
 * bounded by the stream cap, the page's text limit and the parser's memory instead.
 */
export class StringScan {
  private depth = 0;
  private escape = false;
  private hex = false;
  private comment = false;
  private lessThan = false;
  private chars = 0;
  private binary = false;
  /** Inside an inline image's data: 0 no; 1 in data, 2 after a space, 3 after ` E`, 4 after ` EI`. */
  private inline = 0;
  /** The last two bytes outside strings, and whether the byte before them ended a token. */
  private last1 = 0x20;
  private last2 = 0x20;
  private beforeLast = true;
  longest = 0;

  constructor(private readonly max: number) {}

  push(chunk: Uint8Array) {
    if (this.binary) return;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.depth > 0) {
        if (this.escape) this.escape = false;
        else if (b === 0x5c) {
          this.escape = true;
          continue;
        } else if (b === 0x28) this.depth++;
        else if (b === 0x29 && --this.depth === 0) {
          this.close();
          continue;
        }
        this.count(1);
      } else if (this.hex) {
        if (b === 0x3e) {
          this.chars = Math.ceil(this.chars);
          this.hex = false;
          this.close();
        } else if (hexValue(b) !== -1) this.count(0.5);
      } else if (this.inline) {
        this.inlineStep(b);
      } else if (this.comment) {
        if (b === 0x0a || b === 0x0d) this.comment = false;
      } else if (this.lessThan) {
        this.lessThan = false;
        if (b !== 0x3c) {
          this.hex = true;
          this.chars = 0;
          if (hexValue(b) !== -1) this.count(0.5);
          else if (b === 0x3e) this.hex = false;
        }
      } else if (b === 0x28) {
        this.depth = 1;
        this.chars = 0;
      } else if (b === 0x3c) this.lessThan = true;
      else if (b === 0x25) this.comment = true;
      else if ((b < 0x20 && !isPdfSpace(b)) || b >= 0x7f) {
        this.binary = true;
        return;
      } else this.operator(b);
    }
  }

  /** Notes the bytes of operators: the `ID` of an inline image starts its data after one space. */
  private operator(b: number) {
    if (isPdfSpace(b) && this.last2 === 0x49 && this.last1 === 0x44 && this.beforeLast) this.inline = 1;
    this.beforeLast = isPdfSpace(this.last2) || isDelimiter(this.last2);
    this.last2 = this.last1;
    this.last1 = b;
  }

  /** pdf.js ends an inline image's data at `EI` between spaces (or a delimiter after it). */
  private inlineStep(b: number) {
    const space = isPdfSpace(b);
    if (this.inline === 4 && (space || isDelimiter(b))) {
      this.inline = 0;
      this.last2 = 0x20;
      this.last1 = 0x20;
      this.beforeLast = true;
      if (b === 0x28) {
        this.depth = 1;
        this.chars = 0;
      }
      return;
    }
    if (space) this.inline = 2;
    else if (this.inline === 2 && b === 0x45) this.inline = 3;
    else if (this.inline === 3 && b === 0x49) this.inline = 4;
    else this.inline = 1;
  }

  private count(n: number) {
    this.chars += n;
    if (this.chars > this.max)
      throw new ParseLimitError(
        'size',
        `a string in a stream of the PDF holds more than ${this.max.toLocaleString('en-US')} characters`,
      );
  }

  private close() {
    if (this.chars > this.longest) this.longest = this.chars;
    this.chars = 0;
  }
}
