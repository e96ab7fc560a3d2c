import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { connectClient } from '@lore/kit/testing';
import type { Rung } from '../ladder.js';
import { load, type Proc, type Row, row } from '../lib.js';
import { GROUPS, groupProfile } from '../tools/profile-groups.js';

/** What the protocol ladder does to its rungs: register an agent, open an SDK v1 session, profile a window. */

/** Registers `handle` on the Lore at `url` and returns its API key. */
export async function registerAgent(url: string, handle: string): Promise<string> {
  const c = await connectClient(undefined, { url });
  const r = (await c.callTool({
    name: 'agent_register',
    arguments: { username: handle, email: `${handle}@example.com`, displayName: handle },
  })) as { structuredContent: { apiKey: string } };
  await c.close();
  return r.structuredContent.apiKey;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A 2025-11-25 session on an SDK v1 server, as a 2025-11-25 client opens one. */
export async function v1Session(url: string): Promise<Record<string, string>> {
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'lore-bench', version: '1' },
      },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (!session) throw new Error(`the SDK v1 server opened no session (${init.status})`);
  const h = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await (
    await fetch(url, {
      method: 'POST',
      headers: h,
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    })
  ).text();
  return h;
}

/** The CPU a call costs on one rung, by group, from a V8 profile of the measured window. */
export async function breakdown(proc: Proc, rung: Rung, out: string, seconds: number): Promise<Row[]> {
  const said = (re: RegExp) =>
    new Promise<void>((resolve) => {
      const on = (d: Buffer) => {
        if (re.test(String(d))) {
          proc.child.stderr!.off('data', on);
          resolve();
        }
      };
      proc.child.stderr!.on('data', on);
    });
  const started = said(/profile started/);
  proc.child.kill('SIGUSR1');
  await started;
  const r = await load(rung.url, { connections: 50, seconds, body: rung.body, headers: rung.headers });
  const written = said(/profile written/);
  proc.child.kill('SIGUSR2');
  await written;
  if (!existsSync(out)) throw new Error(`no profile at ${out}`);
  const { total, byGroup } = groupProfile(out);
  const perCall = (us: number) => us / 1000 / r.total;
  return [
    row({ suite: 'cpu', name: `${rung.name}: sampled CPU per call`, value: perCall(total), unit: 'ms' }),
    ...GROUPS.filter((g) => byGroup[g] > 0).map((g) =>
      row({
        suite: 'cpu',
        name: `${rung.name}: ${g}`,
        value: perCall(byGroup[g]) * 1000,
        unit: `µs (${((100 * byGroup[g]) / total).toFixed(0)}%)`,
      }),
    ),
  ];
}
