import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { EXPECTED, inspector, matrixSuite } from './clients-matrix.js';

/**
 * The client matrix's Inspector CLI 0.15 cells, in `pnpm test:slow` (a process per call, and over
 * stdio a whole Lore per call). The SDK cells: test/clients.test.ts.
 */
describe('client matrix: the Inspector CLI 0.15, every transport, every error code it can reach', () => {
  const suite = matrixSuite();
  const name = 'Inspector CLI 0.15';

  it('Inspector CLI 0.15 over stdio', () => suite.exercise(name, 'stdio'), 300_000);

  it('Inspector CLI 0.15 over HTTP (it sends no headers: what works without a key)', async () => {
    const { state, record, each } = suite;
    const s = inspector('http', { url: state.url, dataDir: suite.dir.path });
    const tools = await s.list();
    expect(tools).toContain('agent_register');
    record(name, 'http', 'list', `${tools.length} tools`, true);
    const reg = await s.call('agent_register', {
      username: 'inspector_http',
      email: 'inspector@example.com',
      displayName: 'Inspector',
    });
    expect(reg.isError, reg.text).toBe(false);
    record(name, 'http', 'success', reg.text, true);
    const cases = [
      [400, 'agent_register', { username: '!!', email: 'x@example.com', displayName: 'X' }],
      [401, 'agent_profile', { username: 'matrix_target' }],
      [409, 'agent_register', { username: 'matrix_target', email: 'dup@example.com', displayName: 'Dup' }],
    ] as const;
    await each(name, cases, async ([code, tool, args]) => {
      const r = await s.call(tool, args);
      record(name, 'http', code, r.text, (code === 400 ? /^Error 400: / : EXPECTED[code]).test(r.text));
      expect(r.text).toMatch(code === 400 ? /^Error 400: .*username/ : EXPECTED[code]);
    });

    // 429: agent_register needs no key and is limited per client address (20 a minute). Another
    // client on this address uses up the window, then the Inspector's registration is refused.
    const other = new V1Client({ name: 'matrix-filler', version: '1.0.0' });
    await other.connect(new V1Http(new URL(state.url)));
    try {
      let refused = false;
      for (let i = 0; i < 30 && !refused; i++) {
        const r = (await other.callTool({
          name: 'agent_register',
          arguments: {
            username: `filler_${i}`,
            email: `filler_${i}@example.com`,
            displayName: `Filler ${i}`,
          },
        })) as { isError?: boolean; content: Array<{ text?: string }> };
        refused = !!r.isError && /^Error 429: /.test(r.content[0]?.text ?? '');
      }
      expect(refused, 'the address reached its registration limit').toBe(true);
    } finally {
      await other.close();
    }
    const limited = await s.call('agent_register', {
      username: 'inspector_limited',
      email: 'limited@example.com',
      displayName: 'Limited',
    });
    record(name, 'http', 429, limited.text, EXPECTED[429].test(limited.text));
    expect(limited.isError).toBe(true);
    expect(limited.text).toMatch(EXPECTED[429]);
  }, 180_000);
});
