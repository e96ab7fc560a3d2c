import { isContentTerm, tokenize } from '@lore/search';

const FENCE = /^\s{0,3}(?:`{3,}|~{3,})/;
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
const SENTENCE_BREAK = /(?<=[.!?]["'”’)\]]*)\s+(?=["'“‘([]?[\p{Lu}\p{N}])/u;
// Saying what the passages do not hold is not a claim that needs a source.
const ABSENCE =
  /\b(?:passages?|sources?|knowledge(?: base)?|context)\b[^.]*\b(?:not|no|nothing|neither|never|doesn['’]t|don['’]t)\b|\b(?:not|never) (?:covered|mentioned|stated|say|said)\b|\bno information\b/i;

/**
 * Keeps only what a model's draft grounds in the passages: every sentence and list item must
 * carry a `[n]` marker naming one of the `passages` numbered passages. Code blocks, headings,
 * one-word lines ("Yes."), lead-ins ending in ":" and statements that the passages do not cover something stay;
 * any other sentence without a marker is removed and returned in `unsupported`.
 */
export function groundDraft(text: string, passages: number): { text: string; unsupported: string[] } {
  const unsupported: string[] = [];
  const out: string[] = [];
  let inFence = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence || FENCE.test(line) || line.trim() === '') {
      out.push(line);
      continue;
    }
    const indent = /^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+)?/.exec(line)![0];
    const kept = line
      .slice(indent.length)
      .split(SENTENCE_BREAK)
      .filter((s) => {
        const ok =
          citesSomething(s, passages) ||
          s.trimEnd().endsWith(':') ||
          ABSENCE.test(s) ||
          /^#{1,6}\s/.test(s) ||
          tokenize(s).filter(isContentTerm).length < 2;
        if (!ok) unsupported.push(s.trim());
        return ok;
      });
    if (kept.length) out.push(indent + kept.join(' '));
  }
  return {
    text: out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    unsupported,
  };
}

/** Whether the text cites at least one of the `passages` numbered passages. */
export function citesSomething(text: string, passages: number): boolean {
  for (const m of text.matchAll(MARKER))
    if (m[1]!.split(',').some((n) => Number(n) >= 1 && Number(n) <= passages)) return true;
  return false;
}

/** Whether the draft already says that the passages leave something out. */
export const namesAGap = (text: string): boolean => ABSENCE.test(text);
