import { createDeflate, deflateSync } from 'node:zlib';

/**
 * A small PDF whose pages all share one Flate content stream that inflates to `inflatedMb`
 * of text-showing operators: a few hundred KB on the wire, gigabytes of work for a parser.
 * Written by hand (pdf.js rebuilds the cross-reference table it lacks), so tests need no
 * committed fixture.
 */
export function compressionBombPdf(opts: { inflatedMb?: number; pages?: number } = {}): Uint8Array {
  const pages = opts.pages ?? 50;
  const unit = Buffer.from('BT /F1 1 Tf 0 0 Td (lore bomb text) Tj ET\n');
  const plain = Buffer.alloc((opts.inflatedMb ?? 64) * 1024 * 1024);
  for (let i = 0; i + unit.length <= plain.length; i += unit.length) unit.copy(plain, i);
  const content = deflateSync(plain, { level: 9 });
  const kids = Array.from({ length: pages }, (_, i) => `${4 + i} 0 R`).join(' ');
  const parts: Buffer[] = [
    Buffer.from('%PDF-1.7\n'),
    Buffer.from('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n'),
    Buffer.from(`2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj\n`),
    Buffer.from(`3 0 obj << /Length ${content.length} /Filter /FlateDecode >> stream\n`),
    content,
    Buffer.from('\nendstream endobj\n'),
  ];
  for (let i = 0; i < pages; i++)
    parts.push(
      Buffer.from(
        `${4 + i} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R ` +
          '/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> endobj\n',
      ),
    );
  parts.push(Buffer.from('trailer << /Root 1 0 R >>\n%%EOF\n'));
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * A one-page PDF whose single Flate content stream inflates to one text string of
 * `inflatedMib` MiB of `A`s: `BT /F1 12 Tf 72 700 Td (AAAA…) Tj ET`. At 700 MiB it is about
 * 0.7 MB on the wire. The stream is deflated (level 9) one MiB at a time, so making it holds
 * no more than that. Other `filters` wrap the deflated bytes (ASCIIHex or ASCII85 outside the
 * Flate, as `/Filter [/AHx /Fl]` says), `hideFilter` leaves `/Filter` out of the stream's
 * dictionary (a reader that trusts the dictionary would not inflate it), and `binaryFirst` puts
 * one byte that content never has (0x80) before the text, so the stream looks binary.
 */
export async function inflatedStringPdf(
  opts: {
    inflatedMib?: number;
    filters?: 'flate' | 'hex' | 'a85';
    hideFilter?: boolean;
    binaryFirst?: boolean;
  } = {},
): Promise<Uint8Array> {
  const mib = opts.inflatedMib ?? 700;
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  const write = async (chunk: Buffer) => {
    if (!deflate.write(chunk)) await new Promise((r) => deflate.once('drain', r));
  };
  if (opts.binaryFirst) await write(Buffer.from([0x80, 0x0a]));
  await write(Buffer.from('BT /F1 12 Tf 72 700 Td ('));
  const mibOfA = Buffer.alloc(1024 * 1024, 0x41);
  for (let i = 0; i < mib; i++) await write(mibOfA);
  deflate.end(Buffer.from(') Tj ET\n'));
  await ended;
  let data = Buffer.concat(out);
  let filter = '/FlateDecode';
  if (opts.filters === 'hex') {
    data = Buffer.from(`${data.toString('hex')}>`);
    filter = '[/ASCIIHexDecode /FlateDecode]';
  } else if (opts.filters === 'a85') {
    data = Buffer.from(`${ascii85(data)}~>`);
    filter = '[/A85 /Fl]';
  }
  const dict = `/Length ${data.length}${opts.hideFilter ? '' : ` /Filter ${filter}`}`;
  return new Uint8Array(
    Buffer.concat([
      Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n'),
      Buffer.from('2 0 obj << /Type /Pages /Kids [4 0 R] /Count 1 >> endobj\n'),
      Buffer.from(`3 0 obj << ${dict} >> stream\n`),
      data,
      Buffer.from('\nendstream endobj\n'),
      Buffer.from(
        '4 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R ' +
          '/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> endobj\n',
      ),
      Buffer.from('trailer << /Root 1 0 R >>\n%%EOF\n'),
    ]),
  );
}

/** Bytes in ASCII85 (Adobe's alphabet, `z` for four zero bytes), without the `~>` end mark. */
function ascii85(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    const n = Math.min(4, bytes.length - i);
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + (k < n ? bytes[i + k]! : 0);
    if (v === 0 && n === 4) {
      parts.push('z');
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode(33 + (v % 85)));
      v = Math.floor(v / 85);
    }
    parts.push(digits.slice(0, n + 1).join(''));
  }
  return parts.join('');
}

/** An HTML page of `depth` nested `<div>`s around one line of text. */
export function deeplyNestedHtml(depth = 40_000): string {
  return `<html><body>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body></html>`;
}

/** A JSON-RPC body whose params nest `depth` arrays deep. */
export function deeplyNestedJson(depth = 100_000): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
}
