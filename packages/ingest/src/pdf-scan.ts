import { formatBytes, ParseLimitError, type ParseLimits } from './limits.js';
import { decodeChain, FILTERS, type Filter, isDecodable, isZlibHeader, OverBudget } from './pdf-filters.js';
import { StringScan } from './pdf-strings.js';

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
