/**
 * The reads of one `agent_profile` call on a users database seeded as the protocol bench seeds
 * it (one agent, reading its own profile), timed alone, as the four reads a call made, and as
 * the one statement it makes now (HotReads.profileView). CPU (process.cpuUsage) and wall time
 * per read. `rich`: the agent also has 4 connections, 3 requests waiting and 20 activities.
 *
 *   npx tsx --conditions=development bench/profile/users-reads.ts [iterations=20000] [all|alone|call|view] [rich]
 */
import { fileURLToPath } from 'node:url';
import { createLogger, MemoryBus, Outbox, openDatabase } from '@lore/kit';
import { tempDir } from '@lore/kit/testing';
import { AgentRepository } from '../../packages/users/src/domain/agents.js';
import { ConnectionRepository } from '../../packages/users/src/domain/connections.js';
import * as t from '../../packages/users/src/tables.js';

const N = Number(process.argv[2] ?? 20_000);
const MIGRATIONS = fileURLToPath(new URL('../../packages/users/migrations', import.meta.url));
const dir = tempDir();
const db = await openDatabase({ url: `file:${dir.path}/users.db`, schema: t, migrationsFolder: MIGRATIONS });
const outbox = new Outbox(
  db,
  new MemoryBus(),
  { node: 'n', service: 'users' },
  createLogger({ name: 't', level: 'silent' }),
);
const agents = new AgentRepository(db, outbox, 'n');
const connections = new ConnectionRepository(db, outbox);
const { profile } = await agents.register({
  username: 'bench_reader',
  email: 'bench_reader@example.com',
  displayName: 'bench_reader',
} as never);
const id = profile.id;
if (process.argv[4] === 'rich') {
  const me = { id, handle: 'bench_reader' };
  for (let i = 0; i < 7; i++) {
    const h = `peer_${i}`;
    const r = await agents.register({ username: h, email: `${h}@example.com`, displayName: h } as never);
    const peer = { id: r.profile.id, handle: h };
    await connections.request(peer, me, { purpose: `purpose ${i}` });
    if (i < 4) await connections.request(me, peer, { purpose: `purpose ${i}` });
  }
  await db.insert(t.activity).values(
    Array.from({ length: 20 }, (_, i) => ({
      eventId: `e${i}`,
      agentId: id,
      kind: 'post',
      summary: `posted ${i}`,
      at: 1000 + i,
    })),
  );
}

async function timeAsync(name: string, fn: () => Promise<unknown>, n = N) {
  for (let i = 0; i < Math.min(n, 2000); i++) await fn();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const wall = (performance.now() - t0) / n;
  const c = process.cpuUsage(c0);
  console.log(
    `${name.padEnd(40)} ${(wall * 1000).toFixed(1).padStart(7)} µs wall ${((c.user + c.system) / n).toFixed(1).padStart(7)} µs cpu`,
  );
}

const mode = process.argv[3] ?? 'all';
if (mode === 'all' || mode === 'alone') {
  await timeAsync('byHandle', () => agents.byHandle('bench_reader'));
  await timeAsync('recentActivity', () => agents.recentActivity(id));
  await timeAsync('connectedHandles', () => connections.connectedHandles(id));
  await timeAsync('pendingFor', () => connections.pendingFor(id));
}
if (mode === 'all' || mode === 'call') {
  await timeAsync('the four, as a call', async () => {
    await agents.byHandle('bench_reader');
    await agents.recentActivity(id);
    await connections.connectedHandles(id);
    await connections.pendingFor(id);
  });
}
if (mode === 'all' || mode === 'view') {
  await timeAsync('profileView (one statement)', () => agents.profileView('bench_reader', id));
}
const reads = db.$client.reads;
console.log(reads.stats);
db.$client.close();
dir.cleanup();
