/**
 * Fenced code in answers. An extractive answer is made of sentences, and a command or a config
 * file is not one: the prose that introduces a code block ("start it with:") would reach the
 * reader without the block itself. These helpers put the block back, as it was written, after
 * the sentence that introduces it.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** Blocks added to one answer at most: the answer stays an answer, not the document. */
const MAX_BLOCKS = 3;
const MAX_BLOCK_CHARS = 2000;

export interface CodeBlock {
  /** The last sentence of the prose line before the block, whitespace collapsed. */
  intro: string;
  /** The block with its fences, line breaks as written. */
  fenced: string;
  /** The code inside the fences. */
  code: string;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The fenced code blocks of a Markdown text, each with the sentence that introduces it. */
export function fencedBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let lastProse = '';
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    const marker = open?.[1];
    if (!marker || (marker[0] === '`' && lines[i]!.slice(open[0].length).includes('`'))) {
      if (lines[i]!.trim() !== '') lastProse = lines[i]!;
      continue;
    }
    let end = i + 1;
    while (end < lines.length) {
      const close = FENCE.exec(lines[end]!)?.[1];
      if (close && close[0] === marker[0] && close.length >= marker.length && lines[end]!.trim() === close)
        break;
      end++;
    }
    const sentences = squash(lastProse).split(/(?<=[.!?:])\s+/);
    blocks.push({
      intro: sentences.at(-1) ?? '',
      fenced: lines.slice(i, Math.min(end + 1, lines.length)).join('\n'),
      code: lines.slice(i + 1, end).join('\n'),
    });
    lastProse = '';
    i = end;
  }
  return blocks;
}

/**
 * The answer with each code block of `sources` whose introducing sentence it quotes, placed
 * after that sentence (and its citation markers). Blocks the answer already holds are left out.
 */
export function withCodeBlocks(answer: string, sources: string[]): string {
  let out = answer;
  let added = 0;
  const seen = new Set<string>();
  for (const block of sources.flatMap(fencedBlocks)) {
    if (added >= MAX_BLOCKS) break;
    const code = block.code.trim();
    if (!code || !block.intro || code.length > MAX_BLOCK_CHARS || seen.has(code) || out.includes(code))
      continue;
    const at = out.indexOf(block.intro);
    if (at < 0) continue;
    // After the sentence and the citation markers that follow it.
    const tail = /^(\s*\[[\d, ]+\])*/.exec(out.slice(at + block.intro.length))?.[0] ?? '';
    const cut = at + block.intro.length + tail.length;
    const rest = out.slice(cut).replace(/^[ \t]+/, '');
    out = `${out.slice(0, cut)}\n\n${block.fenced}\n\n${rest}`.replace(/\n{3,}/g, '\n\n');
    seen.add(code);
    added++;
  }
  return out.trimEnd();
}
