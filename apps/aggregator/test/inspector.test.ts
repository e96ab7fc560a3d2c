import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from './helpers.js';

const run = promisify(execFile);
const INSPECTOR = join(
  import.meta.dirname,
  '../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js',
);

describe('the MCP Inspector CLI against `lore start`', () => {
  const dir = tempDir();
  let lore: Spawned;

  beforeAll(async () => {
    lore = await spawnTs(
      join(ROOT, 'apps/aggregator/src/main.ts'),
      ['start'],
      {
        LORE_DATA_DIR: dir.path,
        LORE_PORT: '0',
        LORE_LOG_LEVEL: 'warn',
        NATS_URL: '',
      },
      /Lore is running at (\S+)/,
    );
  }, 60_000);
  afterAll(async () => {
    await lore?.kill('SIGTERM');
    dir.cleanup();
  });

  const inspector = async (...args: string[]) => {
    const { stdout } = await run(
      process.execPath,
      [INSPECTOR, '--cli', lore.url, '--transport', 'http', ...args],
      { timeout: 60_000 },
    );
    return JSON.parse(stdout);
  };

  it('lists the tools', async () => {
    const r = await inspector('--method', 'tools/list');
    expect(r.tools.map((t: { name: string }) => t.name)).toContain('agent_register');
  }, 60_000);

  it('calls agent_register', async () => {
    const r = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'agent_register',
      '--tool-arg',
      'username=inspector_agent',
      '--tool-arg',
      'email=inspector@example.com',
      '--tool-arg',
      'displayName=Inspector',
    );
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.apiKey).toMatch(/^lore_sk_/);
  }, 60_000);
});
