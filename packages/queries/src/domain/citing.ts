import type { AnswerCitation } from '@lore/schema/queries';
import { isContentTerm, tokenize } from '@lore/search';

/** Consecutive words an edit must keep from an excerpt to count as quoting it. */
export const SHINGLE = 4;
/** Share of an excerpt's content words an edit must use to count as drawing on it. */
export const CONTENT_SHARE = 0.5;
/** Fewest content words shared before the share counts: two common words prove nothing. */
export const MIN_CONTENT_WORDS = 3;

/**
 * The citations an edited answer still draws on: those whose excerpt it quotes (SHINGLE words
 * in a row) or whose content words it mostly uses. An edit that draws on none of them is the
 * owner's own writing and cites nothing, rather than borrowing the old draft's sources.
 */
export function citationsDrawnOn(text: string, citations: AnswerCitation[]): AnswerCitation[] {
  const words = tokenize(text);
  const shingles = new Set(windows(words));
  const content = new Set(words.filter(isContentTerm));
  const kept: AnswerCitation[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    const key = `${c.source}\u0000${c.excerpt}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const ex = tokenize(c.excerpt);
    const quoted = windows(ex).some((s) => shingles.has(s));
    const exContent = [...new Set(ex.filter(isContentTerm))];
    const used = exContent.filter((w) => content.has(w)).length;
    const drawn = used >= MIN_CONTENT_WORDS && used / Math.max(1, exContent.length) >= CONTENT_SHARE;
    if (quoted || drawn) kept.push(c);
  }
  return kept;
}

/** Runs of SHINGLE words with at least two content words ("one of the most" quotes nothing). */
function windows(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + SHINGLE <= words.length; i++) {
    const run = words.slice(i, i + SHINGLE);
    if (run.filter(isContentTerm).length >= 2) out.push(run.join(' '));
  }
  return out;
}
