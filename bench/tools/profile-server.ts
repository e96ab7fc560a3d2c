/**
 * A V8 CPU profile of one compiled Lore server over a window of `agent_profile` load
 * (autocannon, 50 connections; start-up excluded), written to <outDir>/<name>.cpuprofile by
 * the bench's profile hook; summarise it with summarize-profile.ts.
 *
 *   npx tsx --conditions=development bench/tools/profile-server.ts <outDir> [seconds=8] [entry=apps/aggregator/dist/bundle/main.js]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LADDER_ENV, load, MCP_HEADERS, ROOT, start, toolsCallBody } from '../lib.js';
import { registerAgent } from '../suites/protocol-rungs.js';

const outDir = process.argv[2]!;
const seconds = Number(process.argv[3] ?? 8);
const entry = process.argv[4] ?? 'apps/aggregator/dist/bundle/main.js';
const aio = entry.includes('aggregator');
const dir = mkdtempSync(join(tmpdir(), 'lore-prof-'));
const env = LADDER_ENV;
// PROF_DISTRIBUTED=1: the aggregator in distributed mode in front of a users service of its own.
const upstream = process.env.PROF_DISTRIBUTED
  ? await start(
      join(ROOT, 'packages/users/dist/bundle/main.js'),
      [],
      { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'users') },
      /"url":"(http[^"]+)"/,
      60_000,
      [],
      'built',
    )
  : undefined;
const p = await start(
  join(ROOT, entry),
  aio ? ['start'] : [],
  {
    ...env,
    LORE_PORT: '0',
    LORE_DATA_DIR: join(dir, 'main'),
    ...(upstream ? { LORE_SERVICES: `users=${upstream.url}` } : {}),
    BENCH_PROFILE_OUT: join(outDir, `${aio ? 'aio' : 'users'}.cpuprofile`),
  },
  aio ? /Lore is running at (\S+)/ : /"url":"(http[^"]+)"/,
  60_000,
  ['--import', join(ROOT, 'bench/targets/profile-hook.ts')],
  'built',
);
const key = await registerAgent(p.url, 'bench_reader');
const headers = {
  ...MCP_HEADERS,
  'mcp-method': 'tools/call',
  'mcp-name': 'agent_profile',
  authorization: `Bearer ${key}`,
};
const body = toolsCallBody('agent_profile', { username: 'bench_reader' });
await load(p.url, { connections: 50, seconds: 2, body, headers });
const said = (what: RegExp) =>
  new Promise<void>((resolve) => {
    const on = (d: Buffer) => {
      if (what.test(String(d))) {
        p.child.stderr!.off('data', on);
        resolve();
      }
    };
    p.child.stderr!.on('data', on);
  });
const startedProfile = said(/profile started/);
p.child.kill('SIGUSR1');
await startedProfile;
const r = await load(p.url, { connections: 50, seconds, body, headers });
const written = said(/profile written/);
p.child.kill('SIGUSR2');
await written;
console.log(`${r.rps.toFixed(0)} req/s, ${r.total} calls`);
await p.stop();
await upstream?.stop();
rmSync(dir, { recursive: true, force: true });
