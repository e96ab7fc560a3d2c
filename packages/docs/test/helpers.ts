import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { LoreService } from '@lore/kit';
import type { EventBus } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { appFetch, type Client, type ConnectOptions, connectClient, ok, testDeps } from '@lore/kit/testing';
// Tests only: the users service answers key verification on the bus (services never import each other).
import { startUsersService } from '@lore/users/testing';
import { createDocsService, type DocsServiceOptions } from '../src/index.js';

/**
 * A docs service on temp storage, with the users service on the same in-process bus (the docs
 * service verifies keys by asking it), and a way to register agents and connect MCP clients.
 */
export async function startDocs(
  env: Record<string, string> = {},
  options?: DocsServiceOptions,
  bus?: EventBus,
) {
  const t = testDeps({ LORE_RATE_LIMITS: 'false', ...env }, bus);
  const users = await startUsersService(t.deps);
  const service: LoreService = await createDocsService(t.deps, options);
  await service.start();
  const anon = await connectClient(appFetch(users.app));
  return {
    ...t,
    service,
    /** Registers an agent and connects a client to the docs service with its key. */
    async client(handle = 'reader', opts: Omit<ConnectOptions, 'key'> = {}): Promise<Client> {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      return connectClient(appFetch(service.app), { ...opts, key: r.data.apiKey });
    },
    async close() {
      await service.stop();
      await users.stop();
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
export async function listen(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
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

/**
 * How many segments `chunks_fts`'s index is in, read from FTS5's structure record (row 10 of
 * `chunks_fts_data`: a 4-byte cookie, the 4-byte mark of its second format when present, then
 * the varints of the level count and the segment count). Reading it changes nothing.
 */
export async function ftsSegments(db: Database): Promise<number> {
  const row = (await db.$client.execute('select block from chunks_fts_data where id = 10')).rows[0];
  if (!row) return 0;
  const bytes = new Uint8Array(row.block as ArrayBuffer);
  let at = 4;
  if (bytes[4] === 0xff && bytes[5] === 0 && bytes[6] === 0 && bytes[7] === 1) at += 4;
  const varint = () => {
    let n = 0;
    for (;;) {
      const b = bytes[at++]!;
      n = n * 128 + (b & 0x7f);
      if (!(b & 0x80)) return n;
    }
  };
  varint(); // levels
  return varint();
}
