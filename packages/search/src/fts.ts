/**
 * Query shaping for BM25 over a large FTS5 table.
 *
 * FTS5 has no top-k pruning: `ORDER BY bm25(…) LIMIT n` scores every row the expression
 * matches, and counts the rows of every phrase for its IDF, before it keeps the best n. The
 * OR of a question's terms matches most of the table as soon as a few common words are among
 * them, so ranking it costs about as much as the table is large.
 *
 * Instead, the terms are split by document frequency into rare (R) and common (C) ones and two
 * expressions are ranked, `R AND (C)` and `R`, each to the wanted depth, then merged
 * (`rankSplitTerms`). FTS5 scores a row with every phrase of the expression, so a row of
 * `R AND (C)` gets exactly the score the OR of all terms would give it, and so does a row of
 * `R` that holds no common term. The candidates are the rows holding a rare term; rows made
 * of common terms alone are left out, which is the one difference from ranking the full OR.
 */

/** BM25 parameter k1 of FTS5's `bm25()`: a phrase adds less than IDF × (k1 + 1) to a row's score. */
const FTS5_K1 = 1.2;

/** Tuning of `splitTermsByFrequency`. */
export interface TermSplitOptions {
  /** Largest share of the rows a rare term may be in. */
  rareShare?: number;
  /** When no term is rare, how many of the rarest stand in for them (default 2). */
  fallbackTerms?: number;
  /**
   * Below this many matches in all (the sum of the terms' document frequencies), the terms are
   * not split: ranking their OR is cheap, so it is ranked exactly. A term is only dropped for
   * being in most rows when it is also in at least this many.
   */
  minMatches?: number;
  /**
   * At least the rows FTS5 computes IDF over, when `rows` is a part of the table (one owner's
   * rows); `df` must then be at most the table-wide counts. Only `rareBound` uses it.
   */
  tableRows?: number;
}

/**
 * Rare: in at most 5 % of the rows. 2 % ranks fewer rows, but with the split forced on small
 * real corpora (the Hono docs, the docs tests' handbook) it lost a third of the expected pages
 * from the top 5, where 5 % lost one in 45.
 */
export const DEFAULT_RARE_SHARE = 0.05;
export const DEFAULT_MIN_MATCHES = 2000;

/** A query's terms, split for ranking (see `splitTermsByFrequency`). */
export interface TermSplit {
  /** Every candidate holds at least one of these; never empty. */
  rare: string[];
  /** These only add to a candidate's score. */
  common: string[];
  /** More than FTS5's `bm25()` can give a row for the rare terms alone (a bound, see `rankSplitTerms`). */
  rareBound: number;
  /**
   * The same bound for each rare term alone, in the order of `rare` (they sum to `rareBound`).
   * Without it, `rankSplitTerms` ranks all of `R` when it must rank rows holding no common term.
   */
  rareBounds?: number[];
}

/**
 * Splits a query's terms by document frequency (`df`, over `rows` rows) into rare and common.
 *
 * - Terms in no row are left out (they match nothing).
 * - Terms in more than half of the rows are left out: they weigh next to nothing (FTS5 clamps
 *   the IDF of a term in most of its table to almost zero), yet they are the costliest to
 *   rank. When nothing else is left, the rarest of them is kept.
 * - When the remaining terms match few rows in all, nothing is split: every term is "rare".
 * - Rare: in at most `rareShare` of the rows. When no term is, the `fallbackTerms` rarest: one
 *   common word alone leaves out more of the rows the others rank high (on the bench corpora, a
 *   point of the top 5), two cost a second ranking of many rows when the page is deep.
 *
 * `null` when no term is in any row.
 */
export function splitTermsByFrequency(
  terms: readonly string[],
  df: (term: string) => number,
  rows: number,
  opts: TermSplitOptions = {},
): TermSplit | null {
  const rareShare = opts.rareShare ?? DEFAULT_RARE_SHARE;
  const minMatches = opts.minMatches ?? DEFAULT_MIN_MATCHES;
  const present = [...new Set(terms)].filter((t) => df(t) > 0);
  if (!present.length) return null;
  // A stable sort: equally frequent terms keep the query's order.
  const byRarity = (ts: string[]) => [...ts].sort((a, b) => df(a) - df(b));
  let kept = present.filter((t) => !(df(t) * 2 > rows && df(t) >= minMatches));
  if (!kept.length) kept = byRarity(present).slice(0, 1);
  let rare = kept;
  if (kept.reduce((n, t) => n + df(t), 0) >= minMatches) {
    rare = kept.filter((t) => df(t) <= rows * rareShare);
    if (!rare.length) rare = byRarity(kept).slice(0, Math.max(1, opts.fallbackTerms ?? 2));
  }
  const tableRows = Math.max(rows, opts.tableRows ?? 0);
  const rareBounds = rare.map((t) => fts5Idf(tableRows, df(t)) * (FTS5_K1 + 1));
  return {
    rare,
    common: kept.filter((t) => !rare.includes(t)),
    rareBound: rareBounds.reduce((sum, b) => sum + b, 0),
    rareBounds,
  };
}

/** FTS5's IDF of a phrase in `hits` of `rows` rows (it clamps it to 1e-6 when not positive). */
const fts5Idf = (rows: number, hits: number) => {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : 1e-6;
};

/** One term quoted as an FTS5 string, so that FTS5 syntax in it is inert. */
export const ftsPhrase = (term: string) => `"${term.replaceAll('"', '""')}"`;

/**
 * The FTS5 expressions to rank for a split: `R AND (C)`, then `R` (only `R` when there is no
 * common term). `scope`, when given, is AND-ed in front of each (a column filter, for instance).
 */
export function ftsSplitExpressions(split: TermSplit, scope?: string): string[] {
  const head = scope ? `${scope} AND ` : '';
  const rare = `(${split.rare.map(ftsPhrase).join(' OR ')})`;
  if (!split.common.length) return [`${head}${rare}`];
  return [`${head}${rare} AND (${split.common.map(ftsPhrase).join(' OR ')})`, `${head}${rare}`];
}

/** A ranked row: its id and FTS5's rank (lower is better, as `bm25()` returns it). */
export interface RankedRow {
  id: number;
  rank: number;
}

/**
 * The best `limit` rows, best first, of a split's rankings: `R AND (C)` first, then rankings of
 * rare terms alone (`R`, or the narrower ones of `rareOnlyExpressions`). Each ranking must be the
 * best rows of its expression, best first: all of them, or its best `limit`.
 *
 * A row of `R AND (C)` has its full score. A row of the other rankings has it too when the
 * expression holds every term the row holds; otherwise its score there is partial (lower), and
 * the row is either in a ranking where it has its full score or kept below every row of the
 * true best `limit` by it. A row keeps its best score of all rankings. Ties go to the lower id,
 * as `ORDER BY rank, rowid` has them.
 */
export function mergeSplitRankings<T extends RankedRow>(
  rankings: readonly (readonly T[])[],
  limit: number,
): T[] {
  const byId = new Map<number, T>();
  for (const ranking of rankings)
    for (const r of ranking) {
      const seen = byId.get(r.id);
      if (!seen || r.rank < seen.rank) byId.set(r.id, r);
    }
  return [...byId.values()].sort((a, b) => a.rank - b.rank || a.id - b.id).slice(0, Math.max(0, limit));
}

/**
 * The expressions that find, with their full scores, every row holding rare terms only (no
 * common term) that could score more than `threshold`, each term in an expression once (FTS5
 * scores a phrase as often as the expression names it). A row holding only the rare terms S
 * scores less than the sum of their bounds (`rareBounds`), so a term whose own bound is at most
 * `threshold` needs a second rare term beside it: with the rare terms t1…tk ordered, the rows
 * holding two or more are those of `t_i AND (t_i+1 OR … OR tk)` for some i (each row with its
 * full score in the one of its first term), and the rows holding one term alone are only needed
 * for the terms whose bound exceeds the threshold, ranked alone. Those are the rarest terms, so
 * this leaves out the many rows that hold one frequent rare term and nothing else (the
 * questions with no truly rare word, where `R` is two terms in a tenth of the rows each).
 * `null` when every rare term may reach the threshold alone: then `R` is ranked whole.
 */
export function rareOnlyExpressions(split: TermSplit, threshold: number, scope?: string): string[] | null {
  const bounds = split.rareBounds;
  if (!bounds || bounds.length !== split.rare.length) return null;
  const terms = split.rare.map((t, i) => ({ t, b: bounds[i]! })).sort((x, y) => y.b - x.b);
  if (terms.every((x) => x.b > threshold)) return null;
  const head = scope ? `${scope} AND ` : '';
  const out: string[] = [];
  let after = terms.reduce((sum, x) => sum + x.b, 0);
  for (const [i, { t, b }] of terms.entries()) {
    after -= b;
    if (b > threshold) out.push(`${head}${ftsPhrase(t)}`);
    // The rows whose first term is t (in this order) and that hold another one: the best of
    // them holds all the rest, and could not reach the threshold even so.
    if (i + 1 < terms.length && b + after > threshold)
      out.push(
        `${head}${ftsPhrase(t)} AND (${terms
          .slice(i + 1)
          .map((x) => ftsPhrase(x.t))
          .join(' OR ')})`,
      );
  }
  return out;
}

/**
 * Ranks a split: `rank` runs one FTS5 expression and returns its best `limit` rows (fewer when
 * it has fewer), or null to give up (then so does this). `R AND (C)` is ranked first; the rows
 * without a common term, which score less than `split.rareBound`, only when they could still
 * be among the best `limit` — on a page a few rows deep they seldom can — and then only those
 * that could (`rareOnlyExpressions`: the rows holding one frequent rare term and nothing else
 * seldom can), or `R` whole: ranking it scores every row holding a rare term once more.
 *
 * `exactTop` (at most `limit`): when the rows are candidates for a rescoring that keeps fewer,
 * only the best `exactTop` must be exactly the best; `R` is then skipped when its rows without
 * a common term cannot reach those, and the rest of the `limit` rows are `R AND (C)`'s next
 * best (rows holding a rare term alone may be missing among them; when `R AND (C)` has fewer
 * than `limit` rows, `R` is ranked as without `exactTop`).
 */
export async function rankSplitTerms(
  split: TermSplit,
  limit: number,
  rank: (expression: string) => Promise<RankedRow[] | null>,
  scope?: string,
  exactTop = limit,
): Promise<RankedRow[] | null> {
  const [first, second] = ftsSplitExpressions(split, scope);
  const withCommon = await rank(first!);
  if (!withCommon) return null;
  if (!second) return withCommon.slice(0, limit);
  // A ranking of fewer than `limit` rows is all of `R AND (C)`: `R` then fills the rest.
  const last =
    withCommon.length >= limit ? withCommon[Math.min(limit, Math.max(1, exactTop)) - 1] : undefined;
  if (last && -last.rank >= split.rareBound) return withCommon.slice(0, limit);
  const rankings = [withCommon];
  for (const expression of (last && rareOnlyExpressions(split, -last.rank, scope)) || [second]) {
    const ranking = await rank(expression);
    if (!ranking) return null;
    rankings.push(ranking);
  }
  return mergeSplitRankings(rankings, limit);
}
