import { mkdirSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { type EventBus, type LoreService, generateApiKey, hashApiKey } from '@lore/kit';
import { appFetch, connectClient, testDeps } from '@lore/kit/testing';
import { UsersRpc, type VerifiedAgent } from '@lore/schema';
import { type DocsServiceOptions, createDocsService } from '../src/index.js';

/** Answers key verification on the bus as the users service would, for keys made here. */
export async function fakeUsers(bus: EventBus) {
  const agents = new Map<string, VerifiedAgent>();
  await bus.reply(UsersRpc.verifyKey, async (payload) => ({
    agent: agents.get((payload as { keyHash: string }).keyHash) ?? null,
  }));
  return {
    key(handle: string): string {
      const key = generateApiKey();
      agents.set(hashApiKey(key), { id: `agent-${handle}`, handle, node: 'test-node' });
      return key;
    },
  };
}

/** A docs service on temp storage and an in-process bus, with a way to connect MCP clients. */
export async function startDocs(env: Record<string, string> = {}, options?: DocsServiceOptions) {
  const t = testDeps(env);
  const users = await fakeUsers(t.deps.bus);
  const service: LoreService = await createDocsService(t.deps, options);
  await service.start();
  return {
    ...t,
    service,
    users,
    client: (handle = 'reader') => connectClient(appFetch(service.app), { key: users.key(handle) }),
    async close() {
      await service.stop();
      await t.cleanup();
    },
  };
}

/** Writes files under a root (creating folders). */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** A node:http server on 127.0.0.1 with a handler; resolves to its base URL. */
export async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A captured writable stream for CLI output. */
export function capture() {
  let text = '';
  const stream = {
    write(chunk: string | Uint8Array) {
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    },
    // cli-progress asks a stream for these.
    isTTY: true,
    columns: 100,
    cursorTo() {
      return true;
    },
    clearLine() {
      return true;
    },
    moveCursor() {
      return true;
    },
    on() {
      return stream;
    },
    removeListener() {
      return stream;
    },
  };
  return { stream: stream as unknown as NodeJS.WritableStream, text: () => text };
}
