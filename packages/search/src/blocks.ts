/**
 * Markdown cut into blocks that must not be split when they fit in a chunk: a fenced code
 * block (with its fences), a list (its items and their indented continuation lines), or a
 * paragraph. Blank lines separate blocks and are not part of any.
 */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;

export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let kind: 'code' | 'list' | 'para' | null = null;
  let fence = '';
  const flush = () => {
    if (current.length) blocks.push(current.join('\n'));
    current = [];
    kind = null;
  };
  for (const line of text.split('\n')) {
    if (kind === 'code') {
      current.push(line);
      const close = FENCE.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length && line.trim() === close) flush();
      continue;
    }
    const open = FENCE.exec(line)?.[1];
    if (open && !(open[0] === '`' && line.slice(line.indexOf(open) + open.length).includes('`'))) {
      flush();
      kind = 'code';
      fence = open;
      current.push(line);
      continue;
    }
    if (line.trim() === '') {
      // A blank line inside a list continues it when the next line is indented or another item.
      if (kind === 'list') current.push(line);
      else flush();
      continue;
    }
    if (LIST_ITEM.test(line)) {
      if (kind !== 'list') flush();
      kind = 'list';
      current.push(line);
      continue;
    }
    if (kind === 'list' && /^\s/.test(line)) {
      current.push(line);
      continue;
    }
    if (kind === 'list') flush();
    kind = 'para';
    current.push(line);
  }
  flush();
  return blocks.map((b) => b.replace(/\n+$/, '')).filter((b) => b.trim() !== '');
}

/**
 * Packs blocks into chunks of at most `size` characters, blocks joined by a blank line, in
 * order. A block longer than `size` is cut by `split` (and only such a block is cut). A chunk
 * that follows a paragraph starts with that paragraph's last words (up to `overlap`
 * characters) when they fit, so a sentence that leads into the next block stays beside it.
 */
export async function packBlocks(
  blocks: string[],
  size: number,
  overlap: number,
  split: (text: string) => Promise<string[]>,
): Promise<string[]> {
  const out: string[] = [];
  let current = '';
  let last = '';
  for (const block of blocks) {
    if (block.length > size) {
      if (current) out.push(current);
      current = '';
      last = '';
      out.push(...(await split(block)));
      continue;
    }
    if (current && current.length + 2 + block.length <= size) current = `${current}\n\n${block}`;
    else {
      if (current) out.push(current);
      const lead = last && !FENCE.test(last) && !LIST_ITEM.test(last) ? tail(last, overlap) : '';
      current = lead && lead.length + 2 + block.length <= size ? `${lead}\n\n${block}` : block;
    }
    last = block;
  }
  if (current) out.push(current);
  return out;
}

/** The last words of `text`, at most `max` characters, starting at a word. */
function tail(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  const cut = text.slice(text.length - max);
  const space = cut.search(/\s/);
  return space < 0 ? '' : cut.slice(space).trim();
}
