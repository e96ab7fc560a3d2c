/**
 * Summarises a .cpuprofile: self time by function and by package, and the inclusive time of
 * the functions whose name matches an optional pattern.
 *
 *   npx tsx bench/tools/summarize-profile.ts <file.cpuprofile> [top=30] [pattern] [leaf]
 *
 * With `leaf`, the self time of functions matching it is charged to their nearest caller that
 * matches `pattern` (who runs the SQL, who builds the errors…).
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, topArg, pattern, leaf] = process.argv.slice(2);
if (!file) throw new Error('usage: summarize-profile.ts <file.cpuprofile> [top] [pattern] [leaf]');
const top = Number(topArg ?? 30);
const p = JSON.parse(readFileSync(file, 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
};
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfUs = new Map<number, number>();
p.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const where = (n: Node) => {
  const u = n.callFrame.url;
  const m =
    /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u) ??
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (m) return m[1]!;
  const l = /\/(packages|apps)\/([^/]+)\//.exec(u);
  if (l) return `@lore/${l[2]}`;
  if (/\/bench\//.test(u)) return 'bench';
  if (u.startsWith('node:') || u === '')
    return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : 'node internals';
  return u;
};
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(packages|apps|node_modules)\//, '$1/').replace(/^file:\/\//, '')}:${n.callFrame.lineNumber + 1}`;

const fnSelf = new Map<string, number>();
const pkgSelf = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  fnSelf.set(label(n), (fnSelf.get(label(n)) ?? 0) + us);
  pkgSelf.set(where(n), (pkgSelf.get(where(n)) ?? 0) + us);
}
const pct = (us: number) =>
  `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms`;
const out: string[] = [
  `${file}: ${(total / 1e6).toFixed(1)} s sampled (${((p.endTime - p.startTime) / 1e6).toFixed(1)} s wall)`,
];
out.push('\nself time by package:');
for (const [k, v] of [...pkgSelf].sort((a, b) => b[1] - a[1]).slice(0, 20)) out.push(`  ${pct(v)}  ${k}`);
out.push(`\nself time by function (top ${top}):`);
for (const [k, v] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`  ${pct(v)}  ${k}`);
if (pattern) {
  // Inclusive time: a sample counts for a function when the function is on its stack (once).
  const re = new RegExp(pattern);
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      const l = label(n);
      if (re.test(l) && !seen.has(l)) {
        seen.add(l);
        incl.set(l, (incl.get(l) ?? 0) + us);
      }
    }
  }
  out.push(`\ninclusive time of functions matching /${pattern}/:`);
  for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`  ${pct(v)}  ${k}`);
}
if (pattern && leaf) {
  const re = new RegExp(pattern);
  const lre = new RegExp(leaf);
  const by = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (!lre.test(label(byId.get(id)!))) continue;
    let who = '(no caller matches)';
    for (let cur = parent.get(id); cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (re.test(l)) {
        who = l;
        break;
      }
    }
    by.set(who, (by.get(who) ?? 0) + us);
  }
  out.push(`\nself time of /${leaf}/ charged to the nearest caller matching /${pattern}/:`);
  for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`  ${pct(v)}  ${k}`);
}
process.stdout.write(`${out.join('\n')}\n`);
