import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connectClient } from '@lore/kit/testing';
import { load, MCP_HEADERS, ROOT, toolsCallBody } from './lib.js';
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/esm/index.mjs')).href;
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-users', '--conditions=development', '--import', TSX, join(ROOT, 'packages/users/src/main.ts')], {
  env: { ...process.env, LORE_RATE_LIMITS: 'false', LORE_LOG_LEVEL: 'info', NATS_URL: '', LORE_PORT: '0', LORE_DATA_DIR: `/tmp/proto-probe-${process.pid}` },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
const url = await new Promise<string>((res) => { const on = (d: Buffer) => { out += d; const m = /"url":"(http[^"]+)"/.exec(out); if (m) res(m[1]!); }; child.stdout!.on('data', on); child.stderr!.on('data', on); });
const c = await connectClient(undefined, { url });
const r = (await c.callTool({ name: 'agent_register', arguments: { username: 'probe', email: 'p@example.com', displayName: 'p' } })) as { structuredContent: { apiKey: string } };
const headers = { ...MCP_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'agent_profile', authorization: `Bearer ${r.structuredContent.apiKey}` };
const body = toolsCallBody('agent_profile', { username: 'probe' });
console.log(10, 'conns', await load(url, { connections: 10, seconds: 5, body, headers }));
child.kill('SIGINT');
await new Promise((r) => child.once('exit', r));
