import { DRAFTING_SET, type DraftCase } from './drafting-set.js';
import { extractiveAnswer } from './extractive.js';

/** What share of the facts each case's draft contains, and whether every passage it quotes is cited. */
export interface DraftingReport {
  cases: number;
  /** Facts found in drafts / facts required. */
  coverage: number;
  /** Cases whose draft holds every required fact. */
  complete: number;
  /** Drafts with a sentence that is not followed by a citation marker. */
  uncited: number;
  misses: string[];
}

/** Drafts each case with the extractive drafter (the passages in the order given) and scores it. */
export function evaluateDrafting(set: DraftCase[] = DRAFTING_SET): DraftingReport {
  let found = 0;
  let required = 0;
  let complete = 0;
  let uncited = 0;
  const misses: string[] = [];
  for (const c of set) {
    const r = extractiveAnswer({
      task: 'answer',
      question: c.question,
      passages: c.passages.map((text, i) => ({ id: `p${i}`, source: 'kb', text })),
    });
    const text = r.text.toLowerCase();
    const missing = c.facts.filter((f) => !text.includes(f.toLowerCase()));
    required += c.facts.length;
    found += c.facts.length - missing.length;
    if (!missing.length) complete++;
    else misses.push(`${c.question} → missing ${missing.join(', ')}`);
    // Every quoted sentence ends with its [n] marker, and every marker names a citation.
    const markers = [...r.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (
      !markers.length ||
      markers.some((n) => n < 1 || n > r.citations.length) ||
      markers.length !== r.citations.length
    )
      uncited++;
  }
  return { cases: set.length, coverage: found / Math.max(1, required), complete, uncited, misses };
}
