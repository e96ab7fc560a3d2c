import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { inflatedStringPdf } from '@lore/kit/testing';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS, ParseLimitError } from './limits.js';
import { extractPdfText } from './pdf.js';
import { type PdfScanLimits, scanPdfStreams } from './pdf-scan.js';

const MiB = 1024 * 1024;
const limits: PdfScanLimits = {
  maxStreamBytes: MiB,
  maxInflatedBytes: 3 * MiB,
  maxTextChars: 10_000,
  maxObjects: 1_000,
};

/** A PDF whose first stream is its one page's content, the others only objects beside it. */
function pdfWith(streams: Array<{ dict: string; data: Uint8Array }>, extra = ''): Uint8Array {
  const parts: Buffer[] = [
    Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n'),
    Buffer.from('2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n'),
    Buffer.from(
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 10 0 R ' +
        '/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> endobj\n',
    ),
    Buffer.from(extra),
  ];
  streams.forEach((s, i) => {
    parts.push(Buffer.from(`${10 + i} 0 obj << /Length ${s.data.length} ${s.dict} >> stream\n`));
    parts.push(Buffer.from(s.data));
    parts.push(Buffer.from('\nendstream endobj\n'));
  });
  parts.push(Buffer.from('trailer << /Root 1 0 R >>\n%%EOF\n'));
  return new Uint8Array(Buffer.concat(parts));
}

/** Content that inflates to exactly `bytes` bytes: operators and short strings. */
function content(bytes: number): Buffer {
  const unit = Buffer.from('BT /F1 12 Tf 72 700 Td (lore) Tj ET\n');
  const out = Buffer.alloc(bytes, 0x20);
  for (let i = 0; i + unit.length <= bytes; i += unit.length) unit.copy(out, i);
  return out;
}

const flate = (data: Uint8Array) => ({ dict: '/Filter /FlateDecode', data: deflateSync(data, { level: 9 }) });

async function refusal(p: Promise<unknown>): Promise<ParseLimitError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ParseLimitError);
  return err as ParseLimitError;
}

describe('scanPdfStreams', () => {
  it('passes a stream that inflates to its cap and refuses one byte more, naming the limit', async () => {
    const at = await scanPdfStreams(pdfWith([flate(content(MiB))]), limits);
    expect(at.inflatedBytes).toBe(MiB);
    expect(at.decoded).toBe(1);
    const over = await refusal(scanPdfStreams(pdfWith([flate(content(MiB + 1))]), limits));
    expect(over.limit).toBe('inflated');
    expect(over.message).toMatch(/inflates to more than 1 MiB/);
  });

  it('refuses streams that are each under the cap but together over the file cap', async () => {
    const three = pdfWith([flate(content(MiB)), flate(content(MiB)), flate(content(MiB))]);
    expect((await scanPdfStreams(three, limits)).inflatedBytes).toBe(3 * MiB);
    const four = pdfWith([flate(content(MiB)), flate(content(MiB)), flate(content(MiB)), flate(content(10))]);
    const err = await refusal(scanPdfStreams(four, limits));
    expect(err.limit).toBe('inflated');
    expect(err.message).toMatch(/more than 3 MiB together/);
  });

  it('stops inflating a 700 MiB stream at the cap: memory stays far below what it would inflate to', async () => {
    const bomb = await inflatedStringPdf({ inflatedMib: 700 });
    expect(bomb.length).toBeLessThan(MiB);
    let peak = 0;
    const before = process.memoryUsage();
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss - before.rss);
    }, 2);
    const started = performance.now();
    // No string limit here: the per-stream cap (64 MiB, the default) is what stops it.
    const err = await refusal(
      scanPdfStreams(bomb, { ...DEFAULT_PARSE_LIMITS, maxTextChars: Number.POSITIVE_INFINITY }),
    );
    const ms = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss - before.rss);
    expect(err.limit).toBe('inflated');
    expect(err.message).toMatch(/more than 64 MiB/);
    process.stderr.write(
      `700 MiB stream refused at the 64 MiB cap in ${ms.toFixed(0)} ms; RSS grew at most ${(peak / MiB).toFixed(1)} MiB\n`,
    );
    // Inflating it all would take 700 MiB (and ~10× the time); the scan holds a few chunks.
    expect(peak).toBeLessThan(64 * MiB);
  }, 60_000);

  it('refuses a string longer than the text limit while it inflates, and passes one at the limit', async () => {
    const string = (n: number) => Buffer.from(`BT /F1 12 Tf 72 700 Td (${'A'.repeat(n)}) Tj ET\n`);
    expect((await scanPdfStreams(pdfWith([flate(string(10_000))]), limits)).decoded).toBe(1);
    const err = await refusal(scanPdfStreams(pdfWith([flate(string(10_001))]), limits));
    expect(err.limit).toBe('size');
    expect(err.message).toMatch(/a string in a stream of the PDF holds more than 10,000 characters/);
    // Hex strings count two digits a character; nested and escaped parentheses stay in the string.
    const hex = Buffer.from(`[<${'41'.repeat(10_001)}>] TJ`);
    expect((await refusal(scanPdfStreams(pdfWith([flate(hex)]), limits))).limit).toBe('size');
    const nested = Buffer.from(`(a (b) \\) ${'A'.repeat(10_000)}) Tj`);
    expect((await refusal(scanPdfStreams(pdfWith([flate(nested)]), limits))).limit).toBe('size');
    // An inline image's data is passed over, binary or not, and strings after it are read.
    const image = (data: Buffer) =>
      Buffer.concat([Buffer.from('q BI /W 4 /H 4 /BPC 8 /CS /G ID '), data, Buffer.from(' EI Q ')]);
    const pixels = Buffer.concat([Buffer.from([0xff, 0x00, 0x28, 0x80]), Buffer.alloc(20_000, 0x41)]);
    expect((await scanPdfStreams(pdfWith([flate(image(pixels))]), limits)).decoded).toBe(1);
    const after = Buffer.concat([image(pixels), Buffer.from(`BT (${'A'.repeat(10_001)}) Tj ET`)]);
    expect((await refusal(scanPdfStreams(pdfWith([flate(after)]), limits))).limit).toBe('size');
    // Many short strings and a dictionary are not one long string.
    const many = Buffer.from(`<< /A 1 >> ${'(lore) Tj '.repeat(5_000)}% (comment\n`);
    expect((await scanPdfStreams(pdfWith([flate(many)]), limits)).decoded).toBe(1);
  });

  it('the 700 MiB string is refused within the first million characters', async () => {
    const bomb = await inflatedStringPdf({ inflatedMib: 700 });
    const started = performance.now();
    const err = await refusal(scanPdfStreams(bomb, DEFAULT_PARSE_LIMITS));
    expect(err.limit).toBe('size');
    expect(err.message).toMatch(/more than 1,000,000 characters/);
    // Seconds at most even on a loaded machine; inflating all 700 MiB would take several times longer.
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it('decodes filter chains and streams whose dictionary hides the filter', async () => {
    for (const filters of ['hex', 'a85'] as const) {
      const err = await refusal(scanPdfStreams(await inflatedStringPdf({ inflatedMib: 3, filters }), limits));
      expect(err.limit).toBe('size');
    }
    const hidden = await refusal(
      scanPdfStreams(await inflatedStringPdf({ inflatedMib: 3, hideFilter: true }), limits),
    );
    expect(hidden.limit).toBe('size');
    // A wrong /Length does not shorten what is counted: zlib's own end of stream does.
    const data = deflateSync(content(MiB + 100));
    const lying = pdfWith([{ dict: '/Filter /FlateDecode', data }]).slice();
    const text = Buffer.from(lying).toString('latin1').replace(`/Length ${data.length}`, '/Length 10');
    expect((await refusal(scanPdfStreams(Buffer.from(text, 'latin1'), limits))).limit).toBe('inflated');
    // A filter pdf.js does not know is skipped, by pdf.js and by the scan: the Flate after it counts.
    const hexed = Buffer.from(`${deflateSync(content(MiB + 1)).toString('hex')}>`);
    const skipped = pdfWith([{ dict: '/Filter [/AHx /Crypt /NoSuchFilter /Fl]', data: hexed }]);
    expect((await refusal(scanPdfStreams(skipped, limits))).limit).toBe('inflated');
    // `endstream` inside a stream's data, its real /Length given by reference (as pdf.js reads it):
    // a RunLength stream whose literal run spells `endstream` halfway, then as many runs again.
    const half = Buffer.alloc(2 * 4_500);
    for (let i = 0; i < half.length; i += 2) half[i] = 129;
    const literal = Buffer.concat([Buffer.from([8]), Buffer.from('endstream')]);
    const hiding = Buffer.concat([half, literal, half, Buffer.from([128])]);
    const referenced = pdfWith(
      [{ dict: '/Filter /RunLengthDecode /Length 99 0 R', data: hiding }],
      `99 0 obj ${hiding.length} endobj\n`,
    );
    const shown = Buffer.from(referenced).toString('latin1').replace(`/Length ${hiding.length} `, '');
    expect((await refusal(scanPdfStreams(Buffer.from(shown, 'latin1'), limits))).limit).toBe('inflated');
    // A /Filter given by reference is looked up.
    const byRef = pdfWith(
      [{ dict: '/Filter 98 0 R', data: deflateSync(content(MiB + 1)) }],
      '98 0 obj [/FlateDecode] endobj\n',
    );
    expect((await refusal(scanPdfStreams(byRef, limits))).limit).toBe('inflated');
    // RunLength: two bytes that say "this byte 128 times", repeated.
    const runs = Buffer.alloc(2 * 9_000);
    for (let i = 0; i < runs.length; i += 2) runs[i] = 129;
    expect(
      (await refusal(scanPdfStreams(pdfWith([{ dict: '/Filter /RunLengthDecode', data: runs }]), limits)))
        .limit,
    ).toBe('inflated');
  });

  it('counts LZW as it decodes, code widths and table resets included', async () => {
    // Letters in a long-period pattern: thousands of codes, every width, tables reset often.
    const text = Buffer.alloc(300_000);
    for (let i = 0; i < text.length; i++) text[i] = 97 + ((i * 7 + (i >> 3) + (i >> 11)) % 26);
    const lzw = { dict: '/Filter /LZWDecode', data: lzwEncode(text) };
    const scan = await scanPdfStreams(pdfWith([lzw]), limits);
    expect(scan.inflatedBytes).toBe(text.length);
    // pdf.js reads the same stream to the same text: the encoder above is the one pdf.js decodes.
    const lines = Array.from({ length: 300 }, (_, i) => `(line ${i} of the LZW page) Tj 0 -2 Td`).join(' ');
    const page = lzwEncode(Buffer.from(`BT /F1 2 Tf 72 700 Td ${lines} ET`));
    const read = await extractPdfText(pdfWith([{ dict: '/Filter /LZWDecode', data: page }]));
    expect(read.text.split('\n')).toHaveLength(300);
    expect(read.text).toContain('line 299 of the LZW page');
    // /EarlyChange 0 widens codes one entry later, as pdf.js does when /DecodeParms says so.
    const late = lzwEncode(text, 0);
    const lateDict = '/Filter /LZWDecode /DecodeParms << /EarlyChange 0 >>';
    expect((await scanPdfStreams(pdfWith([{ dict: lateDict, data: late }]), limits)).inflatedBytes).toBe(
      text.length,
    );
    const over = lzwEncode(Buffer.alloc(MiB + 1, 0x20));
    expect(
      (await refusal(scanPdfStreams(pdfWith([{ dict: '/Filter /LZWDecode', data: over }]), limits))).limit,
    ).toBe('inflated');
  });

  it('reads each byte of a file of 50,000 streams a bounded number of times', async () => {
    // Streams with no `endstream` anywhere after them, whose filter has no end mark either.
    const many = Buffer.from(
      `%PDF-1.7\n${'<< /Filter /AHx /Length 10 >> stream\n4142434445\n'.repeat(50_000)}`,
    );
    const started = performance.now();
    const scan = await scanPdfStreams(many, { ...limits, maxObjects: 100_000 });
    expect(scan.streams).toBe(50_000);
    expect(scan.inflatedBytes).toBe(50_000 * 5);
    // Under a second on a quiet machine; a pass that went back to the start for each stream
    // would take minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('does not read binary streams (pictures, fonts) for strings', async () => {
    const picture = Buffer.concat([Buffer.from('('), randomBytes(200_000)]);
    const scan = await scanPdfStreams(
      pdfWith([flate(content(100)), { ...flate(picture), dict: '/Subtype /Image /Filter /FlateDecode' }]),
      limits,
    );
    expect(scan.decoded).toBe(2);
    const font = Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.from('('), Buffer.alloc(20_000, 0x41)]);
    expect((await scanPdfStreams(pdfWith([flate(font)]), limits)).decoded).toBe(1);
  });

  it('counts objects, those declared in object streams included', async () => {
    const objects = Array.from({ length: 1_000 }, (_, i) => `${100 + i} 0 obj null endobj\n`).join('');
    const err = await refusal(scanPdfStreams(pdfWith([flate(content(10))], objects), limits));
    expect(err.limit).toBe('size');
    expect(err.message).toMatch(/more than 1,000 objects/);
    const packed = {
      dict: '/Type /ObjStm /N 5000 /First 10 /Filter /FlateDecode',
      data: deflateSync(content(100)),
    };
    expect((await refusal(scanPdfStreams(pdfWith([flate(content(10)), packed]), limits))).message).toMatch(
      /objects/,
    );
  });

  it('passes a 1,000-page document under the default limits, and reads it', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 0; p < 1_000; p++) {
      const page = doc.addPage([612, 792]);
      for (let l = 0; l < 40; l++)
        page.drawText(`Page ${p + 1}, line ${l + 1}: the manual explains the machine in plain words.`, {
          x: 50,
          y: 750 - l * 17,
          size: 11,
          font,
        });
    }
    const bytes = await doc.save();
    const started = performance.now();
    const scan = await scanPdfStreams(bytes, DEFAULT_PARSE_LIMITS);
    const ms = performance.now() - started;
    process.stderr.write(
      `1,000-page PDF (${(bytes.length / MiB).toFixed(1)} MiB): ${scan.streams} streams, ${(scan.inflatedBytes / MiB).toFixed(1)} MiB inflated, ${scan.objects} objects, scanned in ${ms.toFixed(0)} ms\n`,
    );
    expect(scan.streams).toBeGreaterThanOrEqual(1_000);
    const { pages, text } = await extractPdfText(bytes);
    expect(pages).toBe(1_000);
    expect(text).toContain('Page 1000, line 40');
  }, 120_000);
});

describe('extractPdfText', () => {
  it('refuses a page whose text runs over the page limit as pdf.js hands it over', async () => {
    const page = Buffer.from(`BT /F1 2 Tf 72 700 Td ${'(0123456789) Tj 0 -3 Td '.repeat(200)} ET`);
    const pdf = pdfWith([{ dict: '', data: page }]);
    // 200 lines of ten digits and the line breaks between them.
    const { text } = await extractPdfText(pdf, { maxTextChars: 2_199 });
    expect(text).toBe(Array(200).fill('0123456789').join('\n'));
    const err = await refusal(extractPdfText(pdf, { maxTextChars: 2_198 }));
    expect(err.limit).toBe('size');
    expect(err.message).toMatch(/page 1 of the PDF holds more than 2,198 characters/);
    const doc = await refusal(extractPdfText(pdf, { maxDocumentChars: 1_000 }));
    expect(doc.message).toMatch(/more than 1,000 characters of text/);
  });
});

/** PDF's LZW (early change, as pdf.js decodes it), written plainly: a table reset when it is nearly full. */
function lzwEncode(input: Uint8Array, earlyChange = 1): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let width = 9;
  const put = (code: number) => {
    acc = (acc << width) | code;
    bits += width;
    while (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  };
  let table = new Map<string, number>();
  let next = 258;
  put(256);
  let w = '';
  for (const byte of input) {
    const wc = w + String.fromCharCode(byte);
    if (wc.length === 1 || table.has(wc)) {
      w = wc;
      continue;
    }
    put(w.length === 1 ? w.charCodeAt(0) : table.get(w)!);
    table.set(wc, next++);
    // The decoder adds each entry one code later than here: it widens when `next` here is a power of two.
    if (next + earlyChange - 1 >= 1 << width && width < 12) width++;
    if (next >= 4094) {
      put(256);
      table = new Map();
      next = 258;
      width = 9;
    }
    w = String.fromCharCode(byte);
  }
  if (w) put(w.length === 1 ? w.charCodeAt(0) : table.get(w)!);
  put(257);
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Uint8Array.from(out);
}
