import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { tempDir, testConfig, testDeps } from '@lore/kit/testing';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConformanceFixture } from '../conformance/fixture.js';
import { type AllInOne, startAllInOne, startDistributed, UpstreamConfig } from '../src/index.js';

const here = import.meta.dirname;
const CLI = join(here, '../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SHIM = join(here, '../conformance/node20-shim.mjs');
const BEARER = join(here, '../conformance/bearer.mjs');

/** Run the official suite in server mode against a URL with a baseline of expected failures. */
function conformance(
  url: string,
  baseline?: string,
  key?: string,
): Promise<{ code: number; out: string; passed: number; failed: number }> {
  const cwd = tempDir('lore-conformance-');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        SHIM,
        '--import',
        BEARER,
        CLI,
        'server',
        '--url',
        url,
        // Every server scenario the suite has, the pending ones too (the default runs only the active).
        '--suite',
        'all',
        ...(baseline ? ['--expected-failures', baseline] : []),
      ],
      {
        cwd: cwd.path,
        env: { ...process.env, LORE_CONFORMANCE_KEY: key ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      cwd.cleanup();
      const m = /Total: (\d+) passed, (\d+) failed/.exec(out);
      resolve({ code: code ?? 1, out, passed: Number(m?.[1] ?? 0), failed: Number(m?.[2] ?? 0) });
    });
  });
}

describe('MCP conformance suite (server mode, --suite all: every server scenario, pending ones too), no expected failures', () => {
  let env: ReturnType<typeof testDeps>;
  let fixture: ReturnType<typeof createConformanceFixture>;
  let http: HttpServerHandle;

  beforeAll(async () => {
    env = testDeps();
    fixture = createConformanceFixture(env.deps);
    await fixture.start();
    http = await serveHttp(fixture.app, env.deps.config, 0);
  });
  afterAll(async () => {
    await http.close();
    await fixture.stop();
    await env.cleanup();
  });

  it('passes against the suite’s fixtures served by the kit', async () => {
    const r = await conformance(`${http.url}/mcp`);
    console.log(`conformance vs kit fixture: ${r.passed} passed, ${r.failed} failed`);
    expect(r.failed, r.out.slice(-6000)).toBe(0);
    expect(r.code, r.out.slice(-3000)).toBe(0);
    expect(r.passed).toBeGreaterThan(0);
  }, 180_000);

  it('passes through the aggregator, with the fixtures as its upstream service over HTTP', async () => {
    const dir = tempDir();
    const config = testConfig(dir.path);
    const agg = await startDistributed(config, {
      upstreams: [UpstreamConfig.parse({ name: 'conformance', url: `${http.url}/mcp` })],
    });
    const front = await serveHttp(agg.app, config, 0);
    try {
      // The suite as a client configured with a key: the aggregator's sessions open only for one.
      const r = await conformance(`${front.url}/mcp`, undefined, 'lore_sk_conformance_client');
      console.log(`conformance vs aggregator + kit fixture: ${r.passed} passed, ${r.failed} failed`);
      expect(r.failed, r.out.slice(-6000)).toBe(0);
      expect(r.code, r.out.slice(-3000)).toBe(0);
      expect(r.passed).toBeGreaterThan(0);
    } finally {
      await front.close();
      await agg.close();
      dir.cleanup();
    }
  }, 180_000);
});

describe('MCP conformance suite (server mode, --suite all) against Lore, failures only where a baseline says why', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let aggHttp: HttpServerHandle;
  let users: Awaited<ReturnType<typeof createUsersService>>;
  let usersEnv: ReturnType<typeof testDeps>;
  let usersHttp: HttpServerHandle;

  beforeAll(async () => {
    const config = testConfig(dir.path);
    lore = await startAllInOne(config);
    aggHttp = await serveHttp(lore.app, config, 0);
    usersEnv = testDeps();
    users = await createUsersService(usersEnv.deps);
    await users.start();
    usersHttp = await serveHttp(users.app, usersEnv.deps.config, 0);
  });
  afterAll(async () => {
    await aggHttp.close();
    await lore.close();
    await usersHttp.close();
    await users.stop();
    await usersEnv.cleanup();
    dir.cleanup();
  });

  it('passes against the aggregator, failing only where its baseline says why', async () => {
    const r = await conformance(`${aggHttp.url}/mcp`, join(here, '../conformance/baseline-aggregator.yml'));
    console.log(`conformance vs aggregator: ${r.passed} passed, ${r.failed} failed (baseline)`);
    expect(r.code, r.out.slice(-3000)).toBe(0);
    expect(r.passed).toBeGreaterThan(0);
  }, 180_000);

  it('passes against one service directly, failing only where its baseline says why', async () => {
    const r = await conformance(`${usersHttp.url}/mcp`, join(here, '../conformance/baseline-service.yml'));
    console.log(`conformance vs users service: ${r.passed} passed, ${r.failed} failed (baseline)`);
    expect(r.code, r.out.slice(-3000)).toBe(0);
    expect(r.passed).toBeGreaterThan(0);
  }, 180_000);
});
