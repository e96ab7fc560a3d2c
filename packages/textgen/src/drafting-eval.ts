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
  /** Partly answerable cases whose draft says so and names what is missing / such cases. */
  partialFlagged: number;
  partialCases: number;
  /** Fully answerable cases whose draft wrongly says it answers only in part. */
  falsePartial: number;
  misses: string[];
}

const PARTIAL = /only partly answers this question: it says nothing about (.+)$/m;

/** Drafts each case with the extractive drafter (the passages in the order given) and scores it. */
export function evaluateDrafting(set: DraftCase[] = DRAFTING_SET): DraftingReport {
  let found = 0;
  let required = 0;
  let complete = 0;
  let uncited = 0;
  let partialFlagged = 0;
  let partialCases = 0;
  let falsePartial = 0;
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
    else misses.push(`${c.question} → missing ${missing.map((m) => JSON.stringify(m)).join(', ')}`);
    // Every quoted sentence ends with its [n] marker, and every marker names a citation.
    const markers = [...r.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (
      !markers.length ||
      markers.some((n) => n < 1 || n > r.citations.length) ||
      markers.length !== r.citations.length
    )
      uncited++;
    const note = PARTIAL.exec(r.text)?.[1]?.toLowerCase();
    if (c.notCovered?.length) {
      partialCases++;
      if (note && c.notCovered.every((n) => note.includes(n.toLowerCase()))) partialFlagged++;
      else
        misses.push(
          `${c.question} → should say it does not cover ${c.notCovered.join(', ')} (${note ?? 'no note'})`,
        );
    } else if (note) {
      falsePartial++;
      misses.push(`${c.question} → says it does not cover ${note}`);
    }
  }
  return {
    cases: set.length,
    coverage: found / Math.max(1, required),
    complete,
    uncited,
    partialFlagged,
    partialCases,
    falsePartial,
    misses,
  };
}
