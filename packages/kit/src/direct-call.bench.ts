/**
 * What the direct exchange saves, beside it: the same 2026-07-28 `tools/call` of a trivial tool
 * answered by an endpoint with the direct exchange and by one without it (the SDK's handler, a
 * server per request), in one process through `app.request()` (no socket: the exchange's own
 * cost), the two alternated in rounds. Prints CPU µs a call of each and their ratio per round.
 * The answers are the same byte for byte (`direct-call.test.ts`); BENCHMARKS.md, "The direct
 * exchange", has the figures over sockets.
 *
 *   npx tsx --conditions=development packages/kit/src/direct-call.bench.ts [rounds=5] [calls=2000]
 */
import { tmpdir } from 'node:os';
import { MODERN_PROTOCOL_REVISION } from '@lore/schema/protocol';
import { createHttpApp } from './http-app.js';
import type { McpBackend } from './mcp.js';
import { testConfig } from './testing/index.js';

const rounds = Number(process.argv[2] ?? 5);
const calls = Number(process.argv[3] ?? 2000);

const backend: McpBackend = {
  info: { name: 'direct-bench', version: '1' },
  listTools: () => [{ name: 'lookup', inputSchema: { type: 'object' as const } }],
  callTool: async (_name, args) => ({
    content: [{ type: 'text', text: `found ${String(args.username)}` }],
    structuredContent: { username: args.username },
  }),
};
const config = testConfig(tmpdir());
const withIt = createHttpApp({ backend, config });
const without = createHttpApp({ backend, config, directCalls: false });
const init = {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_PROTOCOL_REVISION,
    'mcp-method': 'tools/call',
    'mcp-name': 'lookup',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'lookup',
      arguments: { username: 'bench_reader' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  }),
};

/** CPU µs a call over `calls` sequential calls (16 in flight). */
async function cpuPerCall(app: typeof withIt): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i += 16)
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        const res = await app.request('/mcp', init);
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        await res.text();
      }),
    );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

await cpuPerCall(withIt);
await cpuPerCall(without);
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  const direct = await cpuPerCall(withIt);
  const sdk = await cpuPerCall(without);
  ratios.push(direct / sdk);
  console.log(
    `round ${r + 1}: direct ${direct.toFixed(0)} µs, SDK ${sdk.toFixed(0)} µs a call (${(direct / sdk).toFixed(2)}×)`,
  );
}
ratios.sort((a, b) => a - b);
console.log(`median: direct / SDK = ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)}× the CPU a call`);
