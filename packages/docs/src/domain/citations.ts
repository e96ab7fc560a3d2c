/**
 * The generator numbers its citations per passage; the answer cites documents: `[n]` becomes
 * the number of the cited document in `references` (first cited, first numbered).
 */
export function citeDocuments(
  text: string,
  citations: Array<{ source: string }>,
): { text: string; references: string[] } {
  const references: string[] = [];
  const number = (n: number): number | null => {
    const source = citations[n - 1]?.source;
    if (!source) return null;
    let k = references.indexOf(source);
    if (k < 0) k = references.push(source) - 1;
    return k + 1;
  };
  const renumbered = text.replace(/\[(\d+(?:\s*,\s*\d+)*)\]/g, (whole, list: string) => {
    const nums = [...new Set(list.split(',').map((x) => number(Number(x.trim()))))].filter(
      (x): x is number => x !== null,
    );
    return nums.length ? `[${nums.join(', ')}]` : whole;
  });
  // Neighbouring markers that now name the same document read as one.
  return { text: renumbered.replace(/(\[[\d, ]+\])(\s*\1)+/g, '$1'), references };
}
