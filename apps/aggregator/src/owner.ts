import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type McpBackend, toolErrorOf } from '@lore/kit';
import type { Aggregator } from './aggregator.js';

export interface OwnerInfo {
  handle: string;
  key: string;
  created: boolean;
}

/**
 * The local owner agent: created on first start so that the person running Lore has a key
 * to paste into a client. The key lives in `owner.key` (mode 600) and nowhere else.
 */
export async function ensureOwner(
  backend: McpBackend,
  dataDir: string,
  handle = 'owner',
  /** On a network where `owner` is taken by another node, this node's owner is `owner_<node>`. */
  nodeId?: string,
): Promise<OwnerInfo | null> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'owner.key');
  if (existsSync(file))
    return {
      handle: readFileSync(join(dataDir, 'owner.handle'), 'utf8').trim() || handle,
      key: readFileSync(file, 'utf8').trim(),
      created: false,
    };
  const result = await backend.callTool(
    'agent_register',
    {
      username: handle,
      email: `${handle}@localhost.localdomain`,
      displayName: 'Local owner',
      bio: 'The operator of this Lore node.',
    },
    {
      token: null,
      era: 'modern',
      requestId: 'owner-bootstrap',
      signal: new AbortController().signal,
      sampling: undefined,
      progress: async () => {},
    },
  );
  const sc = result.structuredContent as { apiKey?: string } | undefined;
  const error = toolErrorOf(result);
  if (error?.code === 409) {
    const own = nodeId ? `owner_${nodeId.replace(/[^a-z0-9]/g, '_')}`.slice(0, 30) : undefined;
    if (own && own !== handle) return ensureOwner(backend, dataDir, own);
    // Another replica of this node created it: its key lives in that replica's data directory.
    return null;
  }
  if (result.isError || !sc?.apiKey)
    throw new Error(`could not create the owner agent: ${error?.message ?? 'unknown error'}`);
  writeFileSync(file, `${sc.apiKey}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  writeFileSync(join(dataDir, 'owner.handle'), `${handle}\n`);
  return { handle, key: sc.apiKey, created: true };
}

/** How a client starts this `lore` over stdio: absolute paths, so it works pasted anywhere. */
export interface StdioLauncher {
  command: string;
  args: string[];
}

/**
 * The command that runs this very `lore`: the built binary when installed, or the checkout's
 * TypeScript entry through its own tsx when run from a checkout (where `npx lore` finds nothing).
 */
export function stdioLauncher(entryUrl: string): StdioLauncher {
  const entry = fileURLToPath(entryUrl);
  if (!entry.endsWith('.ts')) return { command: process.execPath, args: [entry, 'start', '--stdio'] };
  const tsx = fileURLToPath(import.meta.resolve('tsx/esm'));
  return {
    command: process.execPath,
    args: ['--conditions=development', '--import', tsx, entry, 'start', '--stdio'],
  };
}

/** What to paste into an MCP client. */
export function clientConfigs(
  endpoint: string,
  key: string,
  stdio: { keyFile: string; dataDir: string; launcher: StdioLauncher; natsUrl?: string },
) {
  return {
    http: {
      mcpServers: { lore: { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${key}` } } },
    },
    stdio: {
      mcpServers: {
        lore: {
          command: stdio.launcher.command,
          args: stdio.launcher.args,
          // The owner key is read from LORE_DATA_DIR/owner.key; set LORE_API_KEY to act as another agent.
          env: { LORE_DATA_DIR: stdio.dataDir, ...(stdio.natsUrl ? { NATS_URL: stdio.natsUrl } : {}) },
        },
      },
    },
  };
}

/**
 * Follows the owner's key: when the owner rotates it (agent_rotate_key through this endpoint),
 * `owner.key` gets the new one, so the next start prints a live key and stdio keeps working.
 */
export function keepOwnerKey(agg: Aggregator, dataDir: string, owner: OwnerInfo) {
  let key = owner.key;
  const file = join(dataDir, 'owner.key');
  const stop = agg.onResult(
    (name, call, result) => {
      if (name !== 'agent_rotate_key' || result.isError || call.token !== key) return;
      const next = (result.structuredContent as { apiKey?: string } | undefined)?.apiKey;
      if (!next) return;
      key = next;
      writeFileSync(file, `${next}\n`, { mode: 0o600 });
    },
    ['agent_rotate_key'],
  );
  return { current: () => key, stop };
}
