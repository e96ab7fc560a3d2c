import { markdownBlocks, tokenize } from '@lore/search';

/**
 * What an answer can quote from a passage: a sentence of prose, or a code block, list or table
 * kept whole, line breaks and all (a block quoted in part, or flattened onto one line, no longer
 * says what its author wrote). A sentence ending in a colon that introduces a block travels with it.
 */
export interface Unit {
  kind: 'sentence' | 'code' | 'list' | 'table';
  text: string;
}

export const LIST_MARKER = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}#{1,6}(?:\s|$)/;
const TABLE_RULE = /^\|?[\s:|-]+\|?$/;
export const CITATION_MARKER = /\s*\[\d+(?:\s*[,–-]\s*\d+)*\]/g;
// A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and a
// capital, digit or opening quote/bracket.
const SENTENCE_BREAK = /(?<=[.!?]["'”’)\]]*)\s+(?=["'“‘([]?[\p{Lu}\p{N}])/u;

const flat = (s: string) => s.replace(CITATION_MARKER, '').replace(/\s+/g, ' ').trim();

function sentences(paragraph: string): string[] {
  return paragraph
    .split(SENTENCE_BREAK)
    .map(flat)
    .filter((s) => tokenize(s).length >= 2);
}

/**
 * Splits a passage into quotable units, in order: paragraphs into sentences (soft-wrapped lines
 * joined, `[n]` markers removed), fenced code blocks, lists and tables as single units with their
 * lines intact. Headings are dropped. A lead-in sentence ending in ":" right before a block is
 * joined to it. A passage without a proper sentence or block yields its whole text as one unit.
 */
export function unitsOf(text: string): Unit[] {
  const units: Unit[] = [];
  const para: string[] = [];
  const flushPara = () => {
    if (para.length) for (const s of sentences(para.join(' '))) units.push({ kind: 'sentence', text: s });
    para.length = 0;
  };
  const pushBlock = (kind: Unit['kind'], body: string) => {
    const prev = units.at(-1);
    // "Install it with:" belongs to the block it introduces.
    if (prev?.kind === 'sentence' && prev.text.endsWith(':')) {
      units.pop();
      units.push({ kind, text: `${prev.text}\n${body}` });
    } else units.push({ kind, text: body });
  };

  // Code blocks as the search package's chunker finds them (kept whole there too); the other
  // blocks line by line, for headings, block quotes, lists and tables.
  for (const block of markdownBlocks(text.replace(/\r\n?/g, '\n'))) {
    const lines = block.split('\n');
    const fence = FENCE.exec(lines[0]!);
    if (fence) {
      flushPara();
      const marker = fence[1]!;
      const close = new RegExp(`^\\s{0,3}${marker[0]}{${marker.length},}\\s*$`);
      const inner = lines.length > 1 && close.test(lines.at(-1)!) ? lines.slice(1, -1) : lines.slice(1);
      // An empty block says nothing.
      if (inner.some((l) => l.trim() !== ''))
        pushBlock('code', [lines[0]!.trimStart(), ...inner, marker].join('\n'));
      continue;
    }
    blockLines(lines, flushPara, pushBlock, para);
    flushPara();
  }
  if (units.length === 0) {
    const whole = flat(text);
    if (whole !== '') units.push({ kind: 'sentence', text: whole });
  }
  return units;
}

/** The lines of a block that is not code: paragraph lines into `para`, lists and tables as blocks. */
function blockLines(
  lines: string[],
  flushPara: () => void,
  pushBlock: (kind: Unit['kind'], body: string) => void,
  para: string[],
): void {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^\s*>\s?/, '').trimEnd();
    if (line.trim() === '' || HEADING.test(line)) {
      flushPara();
      continue;
    }
    if (LIST_MARKER.test(line) || line.trimStart().startsWith('|')) {
      flushPara();
      const table = line.trimStart().startsWith('|');
      const body: string[] = [];
      let j = i;
      for (; j < lines.length; j++) {
        const l = lines[j]!.replace(CITATION_MARKER, '').trimEnd();
        if (l.trim() === '' || HEADING.test(l) || FENCE.test(l)) break;
        if (table ? !l.trimStart().startsWith('|') : LIST_MARKER.test(l) === false && !/^\s+\S/.test(l))
          break;
        body.push(l);
      }
      i = j - 1;
      const kept = body.filter((l) => tokenize(l).length > 0);
      if (kept.length) pushBlock(table ? 'table' : 'list', body.join('\n'));
      continue;
    }
    para.push(line.trim());
  }
}

/**
 * The sentences of a passage, for comparing what passages say: code is skipped, list items and
 * table rows count as sentences of their own, markers are removed.
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const u of unitsOf(text)) {
    if (u.kind === 'sentence') {
      out.push(u.text);
      continue;
    }
    const lines = u.text.split('\n');
    const first = lines[0]!;
    if (!FENCE.test(first) && !LIST_MARKER.test(first) && !first.trimStart().startsWith('|'))
      out.push(flat(lines.shift()!));
    if (u.kind === 'code') continue;
    for (const l of lines) if (!TABLE_RULE.test(l.trim())) out.push(...sentences(l.replace(LIST_MARKER, '')));
  }
  if (out.length === 0) {
    const whole = flat(text);
    if (whole !== '') out.push(whole);
  }
  return out;
}
