import { markdownBlocks, packBlocks } from './blocks.js';

// The splitter (and langchain under it) is loaded on first use: services that never split text
// do not carry it in memory.
let splitters: Promise<typeof import('@langchain/textsplitters')> | undefined;
const loadSplitters = () => (splitters ??= import('@langchain/textsplitters'));

export interface SplitOptions {
  format: 'markdown' | 'text';
  /** Target chunk length in characters. Default 1200. */
  chunkSize?: number;
  /** Characters shared between neighbouring chunks of one section. Default 150. */
  chunkOverlap?: number;
}

export interface DocumentChunk {
  /** Position of the chunk in the document, 0-based and dense. */
  index: number;
  text: string;
  /** Markdown headings enclosing the chunk, outermost first (`[]` for plain text). */
  headingPath: string[];
}

export const DEFAULT_CHUNK_SIZE = 1200;
export const DEFAULT_CHUNK_OVERLAP = 150;

interface Section {
  headingPath: string[];
  text: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;

/** Parses an ATX heading line; `null` when the line is not one. */
function parseHeading(line: string): { level: number; title: string } | null {
  const m = ATX_HEADING.exec(line);
  if (!m) return null;
  const hashes = m[1] ?? '';
  let title = (m[2] ?? '').trim();
  // An optional closing sequence of #s, preceded by a space (or the whole content).
  title = title.replace(/(?:^|[ \t]+)#+$/, '').trim();
  return { level: hashes.length, title };
}

/**
 * Cuts Markdown into sections at ATX headings (`#`..`######`), ignoring lines inside fenced
 * code blocks. Each section starts with its heading line and carries the heading hierarchy.
 */
export function markdownSections(content: string): Section[] {
  const lines = content.split('\n');
  const sections: Section[] = [];
  const stack: Array<{ level: number; title: string }> = [];
  let current: string[] = [];
  let currentPath: string[] = [];
  let hasBody = false;
  let fence: { char: string; len: number } | null = null;

  const flush = () => {
    if (hasBody) sections.push({ headingPath: currentPath, text: current.join('\n') });
    current = [];
    hasBody = false;
  };

  for (const line of lines) {
    if (fence) {
      const close = FENCE_OPEN.exec(line);
      const marker = close?.[1];
      if (marker && marker[0] === fence.char && marker.length >= fence.len && line.trim() === marker) {
        fence = null;
      }
      current.push(line);
      hasBody = true;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      const marker = open[1] ?? '```';
      // A backtick fence's info string may not contain backticks (that is inline code).
      if (!(marker[0] === '`' && line.slice(open[0].length).includes('`'))) {
        fence = { char: marker[0] ?? '`', len: marker.length };
        current.push(line);
        hasBody = true;
        continue;
      }
    }
    const heading = parseHeading(line);
    if (heading) {
      flush();
      while (stack.length > 0 && stack[stack.length - 1]!.level >= heading.level) stack.pop();
      stack.push(heading);
      currentPath = stack.map((h) => h.title).filter((t) => t !== '');
      current.push(line);
      continue;
    }
    current.push(line);
    if (!hasBody && line.trim() !== '') hasBody = true;
  }
  flush();
  return sections;
}

function resolveSizes(opts: SplitOptions): { chunkSize: number; chunkOverlap: number } {
  const chunkSize = Math.floor(opts.chunkSize ?? DEFAULT_CHUNK_SIZE);
  if (!Number.isFinite(chunkSize) || chunkSize < 1) {
    throw new RangeError(`chunkSize must be a positive number, got ${opts.chunkSize}`);
  }
  let chunkOverlap = Math.floor(opts.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP);
  if (!Number.isFinite(chunkOverlap) || chunkOverlap < 0) {
    throw new RangeError(`chunkOverlap must be zero or more, got ${opts.chunkOverlap}`);
  }
  if (chunkOverlap >= chunkSize) {
    if (opts.chunkOverlap !== undefined) {
      throw new RangeError(`chunkOverlap (${chunkOverlap}) must be smaller than chunkSize (${chunkSize})`);
    }
    // Only the default overlap is adapted to a small chunk size.
    chunkOverlap = Math.floor(chunkSize / 8);
  }
  return { chunkSize, chunkOverlap };
}

/**
 * Splits a document into chunks for indexing. Markdown is cut at headings first (outside
 * fenced code), so every chunk belongs to exactly one section and keeps its heading path;
 * sections longer than `chunkSize` are packed from whole blocks (paragraphs, lists and fenced
 * code blocks, see `markdownBlocks`) so that a code block or a list that fits in a chunk keeps
 * its lines together; only a block longer than a chunk is cut, by langchain's
 * `RecursiveCharacterTextSplitter` with its Markdown separators. Empty chunks are dropped.
 *
 * Async because langchain's splitter is (its `splitText` returns a Promise); sections that
 * already fit in one chunk skip the splitter entirely.
 */
export async function splitDocument(content: string, opts: SplitOptions): Promise<DocumentChunk[]> {
  const { chunkSize, chunkOverlap } = resolveSizes(opts);
  const normalized = content.replace(/\r\n?/g, '\n');
  const sections: Section[] =
    opts.format === 'markdown' ? markdownSections(normalized) : [{ headingPath: [], text: normalized }];
  const { RecursiveCharacterTextSplitter } = await loadSplitters();
  const splitter =
    opts.format === 'markdown'
      ? RecursiveCharacterTextSplitter.fromLanguage('markdown', { chunkSize, chunkOverlap })
      : new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap });

  const chunks: DocumentChunk[] = [];
  for (const section of sections) {
    const pieces =
      section.text.length <= chunkSize
        ? [section.text]
        : opts.format === 'markdown'
          ? await packBlocks(markdownBlocks(section.text), chunkSize, chunkOverlap, (t) =>
              splitter.splitText(t),
            )
          : await splitter.splitText(section.text);
    for (const piece of pieces) {
      const text = piece.trim();
      if (text === '') continue;
      chunks.push({ index: chunks.length, text, headingPath: [...section.headingPath] });
    }
  }
  return chunks;
}
