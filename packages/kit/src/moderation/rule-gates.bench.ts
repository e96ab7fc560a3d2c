/**
 * What the rule gates save, beside them: Lore's rules over passages of about a kilobyte, each
 * rule searched always and each searched only when its gate lets the text through, the two
 * alternated in rounds. The lines of the kit's README and of the scanner's ordinary corpora make
 * two sets: "prose", the lines no gate lets through (most of what knowledge sources hold), and
 * "near misses", the lines one lets through (an `@`, an "at", a code word, eight digits, a long
 * identifier), where the gates cost their own test and save nothing. Prints CPU µs a passage of
 * each and their ratio per round. The findings are the same (`rule-gates.test.ts`).
 *
 *   npx tsx --conditions=development packages/kit/src/moderation/rule-gates.bench.ts [rounds=5]
 */
import { readFileSync } from 'node:fs';
import { mayFind, RULE_GATES } from './rule-gates.js';
import { foldLookalikes } from './secrets.js';
import { ORDINARY } from './sensitive-corpus.js';
import { SENSITIVE_RULES } from './sensitive-rules.js';

const rounds = Number(process.argv[2] ?? 5);
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** Lines joined into passages of at least a kilobyte, as the scan sees them. */
function passages(lines: string[]): string[] {
  const out: string[] = [];
  let p = '';
  for (const line of lines) {
    p += `${line}\n`;
    if (p.length >= 1000) {
      out.push(foldLookalikes(p));
      p = '';
    }
  }
  return out;
}

const lines = [
  ...read('../../README.md').split('\n'),
  ...ORDINARY,
  ...read('./corpus/ordinary.txt').split('\n'),
]
  .map((l) => l.trim())
  .filter(Boolean);
const shut = (line: string) => Object.values(RULE_GATES).every((gate) => !gate(foldLookalikes(line)));
const sets = {
  prose: passages(lines.filter(shut)),
  'near misses': passages(lines.filter((l) => !shut(l))),
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
