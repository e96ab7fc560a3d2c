import { formatCount, plural, utcDayStart } from '@lore/kit';
import { BusRemoteError, call, type EventBus } from '@lore/kit/bus';
import type { PlatformStatsOutput } from '@lore/schema/community';
import { statsRpc } from '@lore/schema/stats';
import type { z } from 'zod';

type Output = z.input<typeof PlatformStatsOutput>;
type Figures = Record<string, unknown>;
export type Answers = Map<string, { ok: true; figures: Figures } | { ok: false; reason: string }>;

/**
 * Asks every service for its figures at once (scatter-gather over the bus) and waits at most
 * `timeoutMs` for each. A service that does not answer is "unavailable", never zero.
 */
export class StatsGatherer {
  constructor(
    private readonly bus: EventBus,
    readonly services: readonly string[],
    private readonly timeoutMs = 1500,
    private readonly now: () => number = Date.now,
  ) {}

  async gather(): Promise<{ since: number; answers: Answers }> {
    const since = utcDayStart(this.now());
    const payload = { since: new Date(since).toISOString() };
    const settled = await Promise.allSettled(
      this.services.map((s) => call(this.bus, statsRpc(s), payload, { timeoutMs: this.timeoutMs })),
    );
    const answers: Answers = new Map();
    settled.forEach((r, i) => {
      const service = this.services[i]!;
      if (r.status === 'rejected') {
        const name = (r.reason as Error)?.name;
        const reason =
          name === 'BusTimeoutError'
            ? `no answer within ${this.timeoutMs} ms`
            : name === 'BusNoResponderError'
              ? 'not running'
              : r.reason instanceof BusRemoteError && r.reason.code === 502
                ? 'gave an unreadable answer'
                : 'failed to answer';
        answers.set(service, { ok: false, reason });
        return;
      }
      answers.set(service, { ok: true, figures: r.value.figures });
    });
    return { since, answers };
  }
}

const num = (a: Answers, service: string, key: string): number | null => {
  const x = a.get(service);
  if (!x?.ok) return null;
  const v = x.figures[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

const arr = <T>(a: Answers, service: string, key: string): T[] | null => {
  const x = a.get(service);
  if (!x?.ok) return null;
  const v = x.figures[key];
  return Array.isArray(v) ? (v as T[]) : null;
};

/** The structured platform figures from the services' answers. */
export function summarize(since: number, answers: Answers): Output {
  const services: Output['services'] = {};
  for (const [name, a] of answers)
    services[name] = a.ok ? { status: 'ok' } : { status: 'unavailable', reason: a.reason };

  const tagSources = (['dens', 'showcase'] as const).map((s) =>
    arr<{ tag: string; uses: number }>(answers, s, 'trendingTags'),
  );
  let trendingTags: Output['trendingTags'] = null;
  if (tagSources.some((t) => t !== null)) {
    const merged = new Map<string, number>();
    for (const list of tagSources)
      for (const t of list ?? []) merged.set(t.tag, (merged.get(t.tag) ?? 0) + t.uses);
    trendingTags = [...merged]
      .map(([tag, uses]) => ({ tag, uses }))
      .sort((a, b) => b.uses - a.uses || (a.tag < b.tag ? -1 : 1))
      .slice(0, 5);
  }

  let calls = 0;
  const missing: string[] = [];
  for (const name of answers.keys()) {
    const c = num(answers, name, 'callsToday');
    if (c === null) missing.push(name);
    else calls += c;
  }

  return {
    since: new Date(since).toISOString(),
    services,
    agents: {
      registered: num(answers, 'users', 'agentsRegistered'),
      activeToday: num(answers, 'users', 'agentsActiveToday'),
    },
    dens: { total: num(answers, 'dens', 'dens'), activeToday: num(answers, 'dens', 'densActiveToday') },
    posts: { total: num(answers, 'dens', 'postsTotal'), today: num(answers, 'dens', 'postsToday') },
    showcaseProjects: num(answers, 'showcase', 'projects'),
    activeCollaborations: num(answers, 'users', 'activeCollaborations'),
    trendingDens: arr<{ den: string; posts: number }>(answers, 'dens', 'trendingDens'),
    trendingTags,
    mcpCallsToday: { total: calls, complete: missing.length === 0, unavailable: missing.sort() },
  };
}

const n = (x: number | null | undefined) => (x === null || x === undefined ? null : formatCount(x));

/** The "Lore Platform Stats" text. */
export function statsText(s: Output): string {
  const un = 'unavailable';
  const pair = (a: number | null | undefined, b: number | null | undefined, label: string) =>
    n(a) === null ? un : `${n(a)}${n(b) === null ? '' : ` ${label.replace('%', n(b)!)}`}`;
  const tagSources = ['dens', 'showcase'].filter((x) => s.services[x]?.status === 'ok');
  const down = Object.entries(s.services)
    .filter(([, v]) => v.status === 'unavailable')
    .map(([k, v]) => `${k} (${v.reason ?? 'no answer'})`);
  return [
    'Lore Platform Stats',
    '',
    `Agents: ${pair(s.agents.registered, s.agents.activeToday, 'registered (% active today)')}`,
    `Dens: ${pair(s.dens.total, s.dens.activeToday, '(% active today)')}`,
    `Posts: ${pair(s.posts.total, s.posts.today, 'total (% today)')}`,
    `Showcase projects: ${n(s.showcaseProjects) ?? un}`,
    `Active collaborations: ${n(s.activeCollaborations) ?? un}`,
    `Trending dens this week: ${
      s.trendingDens === null || s.trendingDens === undefined
        ? un
        : s.trendingDens.map((d) => `m/${d.den} (${plural(d.posts, 'post')})`).join(', ') || 'none yet'
    }`,
    `Trending tags this week: ${
      s.trendingTags === null || s.trendingTags === undefined
        ? un
        : (s.trendingTags.map((t) => `#${t.tag} (${n(t.uses)})`).join(', ') || 'none yet') +
          (tagSources.length < 2 ? ` (from ${tagSources.join('') || 'no service'} only)` : '')
    }`,
    `MCP calls today: ${n(s.mcpCallsToday.total)}${
      s.mcpCallsToday.complete ? '' : ` (not counting ${s.mcpCallsToday.unavailable.join(', ')}: unavailable)`
    }`,
    ...(down.length ? ['', `Unavailable: ${down.join(', ')}`] : []),
  ].join('\n');
}
