/**
 * The discovery evaluation: "find an agent who knows about X" queries over profiles that say X in
 * other words (`discovery-set.ts`), asked of the real users service over MCP with the local model
 * (`LORE_EMBEDDINGS=local`: words and meaning fused) and without it (`off`: Lore's words only),
 * beside plain BM25 (FTS5 over the profiles' text) and meaning only (cosine over the profiles'
 * vectors) in the same run.
 */
import { createClient } from '@libsql/client';
import { type LoreService, sharedEmbedder } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, testDeps } from '@lore/kit/testing';
import { cosine } from '@lore/search';
import { profileText } from '../src/domain/meaning.js';
import { createUsersService } from '../src/index.js';
import { AGENTS, type EvalQuery, QUERIES } from './discovery-set.js';

export interface DiscoveryMetrics {
  queries: number;
  recall1: number;
  recall3: number;
  /** Share of queries whose agent is among the results at all (10 shown). */
  found: number;
}

export interface DiscoveryResult {
  ranking: string;
  metrics: DiscoveryMetrics;
  misses: string[];
}

function score(rankings: string[][], queries: EvalQuery[]): { metrics: DiscoveryMetrics; misses: string[] } {
  let r1 = 0;
  let r3 = 0;
  let found = 0;
  const misses: string[] = [];
  rankings.forEach((ranked, i) => {
    const rank = ranked.findIndex((u) => queries[i]!.expected.includes(u));
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 3) r3++;
    if (rank >= 0) found++;
    if (rank !== 0)
      misses.push(
        `${rank < 0 ? 'missed' : `@${rank + 1}`}: ${queries[i]!.query} → ${ranked.slice(0, 3).join(', ') || 'nothing'}`,
      );
  });
  const n = Math.max(1, queries.length);
  return { metrics: { queries: queries.length, recall1: r1 / n, recall3: r3 / n, found: found / n }, misses };
}

/** The users service with the set's agents registered, and a client of an agent with an empty profile. */
async function populated(env: Record<string, string>): Promise<{
  service: LoreService;
  asker: Client;
  dir: string;
  cleanup: () => Promise<void>;
}> {
  const t = testDeps({ LORE_RATE_LIMITS: 'false', ...env });
  const service = await createUsersService(t.deps, { statsTimeoutMs: 300 });
  await service.start();
  const anon = await connectClient(appFetch(service.app));
  for (const a of AGENTS)
    await ok(anon, 'agent_register', {
      username: a.username,
      email: `${a.username}@example.com`,
      displayName: a.username.replace(/_/g, ' '),
      bio: a.bio,
      skills: a.skills.map((name) => ({ name, level: 'expert' })),
      interests: a.interests,
    });
  const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
    username: 'asker',
    email: 'asker@example.com',
    displayName: 'asker',
  });
  const asker = await connectClient(appFetch(service.app), { key: r.data.apiKey });
  return {
    service,
    asker,
    dir: t.dir,
    cleanup: async () => {
      await service.stop();
      await t.cleanup();
    },
  };
}

/** Waits until every profile of the set has a vector (they are computed in the background). */
async function vectorsStored(dir: string): Promise<void> {
  const db = createClient({ url: `file:${dir}/users.db` });
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const rs = await db.execute("select count(*) as n from agent_vectors where substr(id, 1, 1) = 'p'");
      if (Number(rs.rows[0]!.n) >= AGENTS.length + 1) return;
      if (Date.now() > deadline) throw new Error('profile vectors not stored within 5 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    db.close();
  }
}

async function viaTools(asker: Client): Promise<{ search: string[][]; discover: string[][] }> {
  const search: string[][] = [];
  const discover: string[][] = [];
  for (const q of QUERIES) {
    const s = await ok<{ agents: Array<{ username: string }> }>(asker, 'agent_search', {
      query: q.query,
      limit: 10,
    });
    search.push(s.data.agents.map((a) => a.username));
    const d = await ok<{ agents: Array<{ username: string }> }>(asker, 'discover_agents', {
      topic: q.query.slice(0, 100),
      limit: 10,
    });
    discover.push(d.data.agents.map((a) => a.username));
  }
  return { search, discover };
}

/** Plain BM25: FTS5 (porter stemming) over each profile's text, the query's words OR-ed. */
async function plainBm25(): Promise<string[][]> {
  const db = createClient({ url: ':memory:' });
  await db.execute(
    "create virtual table p using fts5(username unindexed, text, tokenize='porter unicode61')",
  );
  for (const a of AGENTS)
    await db.execute({
      sql: 'insert into p values (?, ?)',
      args: [
        a.username,
        profileText({
          id: a.username,
          displayName: a.username.replace(/_/g, ' '),
          bio: a.bio,
          skills: a.skills.map((name) => ({ name, level: 'expert' as const })),
          interests: a.interests,
        }),
      ],
    });
  const out: string[][] = [];
  for (const q of QUERIES) {
    const words = q.query.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    const match = words.map((w) => `"${w}"`).join(' OR ');
    const rs = await db.execute({
      sql: 'select username from p where p match ? order by bm25(p) limit 10',
      args: [match],
    });
    out.push(rs.rows.map((r) => String(r.username)));
  }
  db.close();
  return out;
}

/** Meaning only: the profiles ranked by cosine similarity to the query, with the same embedder. */
async function meaningOnly(): Promise<string[][]> {
  const embedder = sharedEmbedder({
    LORE_EMBEDDINGS: 'local',
    LORE_EMBEDDINGS_MODEL: '',
    LORE_EMBEDDINGS_IDLE_MS: 300_000,
  })!;
  const texts = AGENTS.map((a) =>
    profileText({
      id: a.username,
      displayName: a.username.replace(/_/g, ' '),
      bio: a.bio,
      skills: a.skills.map((name) => ({ name, level: 'expert' as const })),
      interests: a.interests,
    }),
  );
  const vectors = await embedder.embed(texts);
  const queries = await embedder.embed(QUERIES.map((q) => q.query));
  return queries.map((qv) =>
    AGENTS.map((a, i) => ({ u: a.username, s: cosine(qv, vectors[i]!) }))
      .sort((x, y) => y.s - x.s)
      .slice(0, 10)
      .map((x) => x.u),
  );
}

export async function evaluateDiscovery(): Promise<DiscoveryResult[]> {
  const results: DiscoveryResult[] = [];
  const add = (ranking: string, rankings: string[][]) =>
    results.push({ ranking, ...score(rankings, QUERIES) });
  add('plain BM25 over profile text', await plainBm25());
  add('meaning only (cosine, all-MiniLM-L6-v2)', await meaningOnly());
  const off = await populated({ LORE_EMBEDDINGS: 'off' });
  try {
    const r = await viaTools(off.asker);
    add('agent_search, words only (LORE_EMBEDDINGS=off)', r.search);
    add('discover_agents, words only (LORE_EMBEDDINGS=off)', r.discover);
  } finally {
    await off.cleanup();
  }
  const local = await populated({ LORE_EMBEDDINGS: 'local' });
  try {
    await vectorsStored(local.dir);
    const r = await viaTools(local.asker);
    add('agent_search, words + meaning (LORE_EMBEDDINGS=local)', r.search);
    add('discover_agents, words + meaning (LORE_EMBEDDINGS=local)', r.discover);
  } finally {
    await local.cleanup();
  }
  return results;
}

export function formatDiscovery(results: DiscoveryResult[]): string {
  const f = (x: number) => x.toFixed(3);
  return [
    `| ranking (${QUERIES.length} queries, ${AGENTS.length} agents) | recall@1 | recall@3 | found in 10 |`,
    '|---|---|---|---|',
    ...results.map(
      (r) => `| ${r.ranking} | ${f(r.metrics.recall1)} | ${f(r.metrics.recall3)} | ${f(r.metrics.found)} |`,
    ),
  ].join('\n');
}
