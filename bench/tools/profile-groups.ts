/**
 * A CPU profile's samples grouped by what the time was spent on (SDK, zod, auth, database…).
 * Each sample is charged to the innermost frame on its stack that a rule recognises, so a
 * `createHash` under the authenticator counts as auth and a `JSON.parse` as JSON wherever it
 * runs. Idle time is left out; "(program)" (native work V8 cannot attribute) counts as other.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const GROUPS = [
  'SDK',
  'zod',
  'auth',
  'rate limits',
  'activity',
  'database',
  'metrics/tracing',
  'logging',
  'JSON',
  'http/web streams',
  'node http',
  'GC',
  'Lore (other)',
  'other',
] as const;
export type Group = (typeof GROUPS)[number];

const RULES: Array<[Group, (fn: string, url: string) => boolean]> = [
  ['GC', (fn) => fn === '(garbage collector)'],
  ['JSON', (fn, url) => !url && /^(parse|stringify)$/.test(fn)],
  ['JSON', (_, url) => /kit\/src\/edge\.ts/.test(url)],
  ['zod', (_, url) => /\/zod\//.test(url)],
  ['auth', (_, url) => /kit\/src\/auth\.ts/.test(url)],
  ['rate limits', (_, url) => /kit\/src\/rate-limit\.ts/.test(url)],
  ['activity', (_, url) => /presence|activity|kit\/src\/stats\.ts/.test(url)],
  ['database', (_, url) => /drizzle-orm|@libsql|libsql|kit\/src\/db\/|\/domain\//.test(url)],
  ['metrics/tracing', (_, url) => /prom-client|@opentelemetry|kit\/src\/(telemetry|metrics)\.ts/.test(url)],
  ['logging', (_, url) => /pino|kit\/src\/logger\.ts|thread-stream|sonic-boom/.test(url)],
  ['SDK', (_, url) => /@modelcontextprotocol/.test(url)],
  [
    'http/web streams',
    (_, url) =>
      /\/hono\/|@hono\/node-server|internal\/webstreams|internal\/deps\/undici|\/undici\//.test(url),
  ],
  ['node http', (_, url) => /node:_http|node:net|node:internal\/(http|stream|streams|net)/.test(url)],
  ['Lore (other)', (_, url) => /\/(packages|apps)\/[^/]+\/(src|dist)\//.test(url)],
];

/** Microseconds per group, and the total (idle excluded). */
export function groupProfile(file: string): { total: number; byGroup: Record<Group, number> } {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map<number, Group | null>();
  const classify = (leaf: number): Group | null => {
    const hit = cache.get(leaf);
    if (hit !== undefined) return hit;
    const top = byId.get(leaf)!.callFrame.functionName;
    let group: Group | null = top === '(idle)' ? null : 'other';
    if (group) {
      for (let cur: number | undefined = leaf; cur !== undefined; cur = parent.get(cur)) {
        const { functionName, url } = byId.get(cur)!.callFrame;
        // The profiler stopping itself is not the server's work.
        if (url === 'node:inspector') {
          group = null;
          break;
        }
        const rule = RULES.find(([, test]) => test(functionName, url));
        if (rule) {
          group = rule[0];
          break;
        }
      }
    }
    cache.set(leaf, group);
    return group;
  };
  const byGroup = Object.fromEntries(GROUPS.map((g) => [g, 0])) as Record<Group, number>;
  let total = 0;
  p.samples.forEach((id, i) => {
    const g = classify(id);
    if (!g) return;
    const us = p.timeDeltas[i] ?? 0;
    byGroup[g] += us;
    total += us;
  });
  return { total, byGroup };
}
