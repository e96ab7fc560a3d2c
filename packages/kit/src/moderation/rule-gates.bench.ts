/**
 * What the rule gates save, beside them: Lore's rules over passages of about a kilobyte, each
 * rule searched always and each searched only when its gate lets the text through, the two
 * alternated in rounds. Two sets: the kit's README in kilobyte passages (technical prose, as
 * knowledge sources mostly are) and the scanner's ordinary corpora joined (near misses: digits,
 * "at", codes, on purpose). Prints CPU µs a passage of each and their ratio per round. The findings
 * are the same (`rule-gates.test.ts`).
 *
 *   npx tsx --conditions=development packages/kit/src/moderation/rule-gates.bench.ts [rounds=5]
 */
import { readFileSync } from 'node:fs';
import { mayFind } from './rule-gates.js';
import { foldLookalikes } from './secrets.js';
import { ORDINARY } from './sensitive-corpus.js';
import { SENSITIVE_RULES } from './sensitive-rules.js';

const rounds = Number(process.argv[2] ?? 5);
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** Pieces joined into passages of at least a kilobyte, as the scan sees them. */
function passages(pieces: string[], joiner: string): string[] {
  const out: string[] = [];
  let p = '';
  for (const piece of pieces) {
    p += `${piece}${joiner}`;
    if (p.length >= 1000) {
      out.push(foldLookalikes(p));
      p = '';
    }
  }
  return out;
}

const sets = {
  'kit README': passages(read('../../README.md').split('\n'), '\n'),
  'ordinary corpora': passages(
    [...ORDINARY, ...read('./corpus/ordinary.txt').split('\n')].filter((l) => l.trim()),
    ' ',
  ),
};

/** CPU µs a passage (steadier than wall time on a shared machine), over a few passes. */
function scan(list: string[], gated: boolean, passes = 5): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < passes; i++)
    for (const p of list) for (const rule of SENSITIVE_RULES) if (!gated || mayFind(rule.id, p)) rule.find(p);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (list.length * passes);
}

for (let r = 0; r <= rounds; r++)
  for (const [name, list] of Object.entries(sets)) {
    const always = scan(list, false);
    const gated = scan(list, true);
    // Round 0 warms up.
    if (r > 0)
      console.log(
        `round ${r}, ${name} (${list.length} passages): every rule ${always.toFixed(1)} µs a passage, gated ${gated.toFixed(1)} µs (${(gated / always).toFixed(2)}×)`,
      );
  }
