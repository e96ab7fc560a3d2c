import { deflateSync } from 'node:zlib';

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

/** An HTML page of `depth` nested `<div>`s around one line of text. */
export function deeplyNestedHtml(depth = 40_000): string {
  return `<html><body>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body></html>`;
}

/** A JSON-RPC body whose params nest `depth` arrays deep. */
export function deeplyNestedJson(depth = 100_000): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
}
