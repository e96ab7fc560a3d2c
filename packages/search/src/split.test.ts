import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownSections, splitDocument } from './split.js';

const para = (seed: number, words = 60) =>
  Array.from({ length: words }, (_, i) => `word${(seed * 31 + i * 7) % 97}`).join(' ') + '.';

describe('markdownSections', () => {
  it('tracks the heading hierarchy and ignores # inside fenced code', () => {
    const md = [
      'Intro text before any heading.',
      '# Guide',
      'Guide body.',
      '## Install',
      'Run the installer.',
      '```sh',
      '# not a heading',
      '## still not',
      '```',
      '### Linux ###',
      'Use apt.',
      '## Usage',
      '~~~~',
      '# inside tilde fence',
      '~~~',
      '# still inside, the closing fence is too short',
      '~~~~',
      'After the fence.',
      '# Other',
      '#### Deep',
      'Deep body.',
    ].join('\n');
    const sections = markdownSections(md);
    expect(sections.map((s) => s.headingPath)).toEqual([
      [],
      ['Guide'],
      ['Guide', 'Install'],
      ['Guide', 'Install', 'Linux'],
      ['Guide', 'Usage'],
      ['Other', 'Deep'],
    ]);
    expect(sections[2]!.text).toContain('# not a heading');
    expect(sections[4]!.text).toContain('# still inside');
    expect(sections[4]!.text).toContain('After the fence.');
  });

  it('drops sections that are only a heading', () => {
    const sections = markdownSections('# A\n\n## B\n\ntext\n## C\n');
    expect(sections).toEqual([{ headingPath: ['A', 'B'], text: '## B\n\ntext' }]);
  });

  it('requires a space after the hashes and at most six of them', () => {
    const sections = markdownSections('#hashtag\n####### seven\n# Real\nbody');
    expect(sections.map((s) => s.headingPath)).toEqual([[], ['Real']]);
  });
});

describe('splitDocument', () => {
  it('keeps heading paths on every chunk and respects the chunk size', async () => {
    const md = ['# Manual', para(1), '## Setup', para(2, 300), '', para(3, 300), '## Running', para(4)].join(
      '\n\n',
    );
    const chunks = await splitDocument(md, { format: 'markdown', chunkSize: 500, chunkOverlap: 50 });
    expect(chunks.length).toBeGreaterThan(4);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(500);
      expect(c.text.trim()).toBe(c.text);
      expect(c.text).not.toBe('');
    }
    expect(chunks[0]!.headingPath).toEqual(['Manual']);
    expect(chunks[0]!.text.startsWith('# Manual')).toBe(true);
    const setup = chunks.filter((c) => c.headingPath.join('/') === 'Manual/Setup');
    expect(setup.length).toBeGreaterThan(2);
    expect(chunks.at(-1)!.headingPath).toEqual(['Manual', 'Running']);
  });

  it('splits plain text without headings and overlaps neighbours', async () => {
    const text = Array.from({ length: 60 }, (_, i) => para(i, 5)).join('\n');
    const chunks = await splitDocument(text, { format: 'text', chunkSize: 300, chunkOverlap: 80 });
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((c) => c.headingPath.length === 0)).toBe(true);
    // The last line of a chunk reappears in the next one.
    for (let i = 0; i + 1 < chunks.length; i++) {
      expect(chunks[i + 1]!.text).toContain(chunks[i]!.text.split('\n').at(-1)!);
    }
  });

  it('treats headings as text in text format', async () => {
    const chunks = await splitDocument('# Title\n\nBody', { format: 'text' });
    expect(chunks).toEqual([{ index: 0, text: '# Title\n\nBody', headingPath: [] }]);
  });

  it('drops empty input and whitespace-only sections', async () => {
    expect(await splitDocument('', { format: 'markdown' })).toEqual([]);
    expect(await splitDocument('  \n\n \r\n', { format: 'text' })).toEqual([]);
    expect(await splitDocument('# Only\n\n## Headings\n', { format: 'markdown' })).toEqual([]);
  });

  it('validates sizes and adapts the default overlap to small chunks', async () => {
    await expect(splitDocument('x', { format: 'text', chunkSize: 0 })).rejects.toThrow(RangeError);
    await expect(splitDocument('x', { format: 'text', chunkSize: 100, chunkOverlap: 100 })).rejects.toThrow(
      RangeError,
    );
    const chunks = await splitDocument(para(1, 100), { format: 'text', chunkSize: 100 });
    expect(chunks.length).toBeGreaterThan(3);
  });

  it('loses no content words (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constantFrom('# H1', '## H2', '### H3', '```', '', '- item one', 'plain line'),
            fc.stringMatching(/^[a-z]{1,12}( [a-z]{1,12}){0,30}$/),
          ),
          { maxLength: 60 },
        ),
        fc.integer({ min: 40, max: 400 }),
        async (lines, chunkSize) => {
          const md = lines.join('\n');
          const chunks = await splitDocument(md, { format: 'markdown', chunkSize, chunkOverlap: 10 });
          const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
          const got = new Set(chunks.flatMap((c) => [...words(c.text)]));
          // Heading-only sections are dropped by design, so heading words may go.
          for (const w of words(md)) if (!/^h[123]$/.test(w)) expect(got.has(w)).toBe(true);
          for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(chunkSize);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('chunks a 1 MB markdown document quickly', async () => {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 1_000_000; i++) {
      const block =
        i % 10 === 0
          ? `# Chapter ${i / 10}\n\n`
          : i % 3 === 0
            ? `## Section ${i}\n\n${para(i, 80)}\n\n\`\`\`ts\n# comment ${i}\nconst x = ${i};\n\`\`\`\n\n`
            : `${para(i, 40 + (i % 120))}\n\n- point ${i}\n- another point\n\n`;
      parts.push(block);
      size += block.length;
    }
    const md = parts.join('');
    await splitDocument(md.slice(0, 50_000), { format: 'markdown' }); // warm up
    const t0 = performance.now();
    const chunks = await splitDocument(md, { format: 'markdown' });
    const ms = performance.now() - t0;
    const rate = Math.round(chunks.length / (ms / 1000));
    console.info(
      `splitDocument: ${(md.length / 1e6).toFixed(2)} MB -> ${chunks.length} chunks in ${ms.toFixed(0)} ms (${rate} chunks/s)`,
    );
    expect(chunks.length).toBeGreaterThan(800);
    expect(ms).toBeLessThan(2000);
  });
});
