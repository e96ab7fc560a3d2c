import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MemoryBus } from '@lore/kit/bus';
import { describe, expect, it } from 'vitest';
import { asset } from './assets.js';
import { HTMX_FILE } from './layout.js';
import { concerns, LiveHints, watchInbox } from './live.js';
import { decisionLog } from './pages/conditions.js';
import { type ReceivedQuery, whyWaiting } from './pages/inbox-view.js';
import { toSourceContent } from './pages/knowledge.js';
import { MemorySessions, SessionStore, token } from './session.js';

const q = (over: Partial<ReceivedQuery>): ReceivedQuery => ({
  id: 'qry-aaaaaa',
  from: 'alice',
  question: 'What is new?',
  status: 'pending',
  timestamp: '2026-11-30T10:00:00.000Z',
  draft: null,
  decision: null,
  ...over,
});

describe('console pieces', () => {
  it('serves exactly the pinned htmx release it vendors', () => {
    const pkg = createRequire(import.meta.url).resolve('htmx.org/package.json');
    const version = JSON.parse(readFileSync(pkg, 'utf8')).version as string;
    expect(HTMX_FILE).toBe(`htmx-${version}.min.js`);
    const upstream = readFileSync(join(pkg, '../dist/htmx.min.js'), 'utf8');
    expect(asset(HTMX_FILE)?.body).toBe(upstream);
    expect(asset('../package.json')).toBeUndefined();
  });

  it('names the JSX runtime in every page file, so tsx run outside the package (pnpm dev) renders them too', () => {
    // Without the pragma, esbuild under a tsconfig with no `jsx` (the repository root's) emits React.createElement.
    const dirs = [import.meta.dirname, join(import.meta.dirname, 'pages')];
    const files = dirs.flatMap((d) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.tsx'))
        .map((f) => join(d, f)),
    );
    expect(files.length).toBeGreaterThan(5);
    for (const f of files)
      expect(readFileSync(f, 'utf8').split('\n')[0], f).toBe(
        '/** @jsxRuntime automatic @jsxImportSource hono/jsx */',
      );
  });

  it('says why a query waits from whatever field the tools give', () => {
    expect(
      whyWaiting(q({ status: 'held', hold_reason: 'The draft looks like it contains a secret.' })),
    ).toEqual(['The draft looks like it contains a secret.']);
    expect(
      whyWaiting(
        q({ decision: { reason: 'No condition matched.', decided_by: 'none', condition: null, at: null } }),
      ),
    ).toEqual(['No condition matched.']);
    expect(whyWaiting(q({ status: 'held' }))).toEqual(['Held for your review.']);
  });

  it('filters the decision log by how, condition, asker and date', () => {
    const d = (at: string, by: string, condition: string | null) => ({
      reason: 'r',
      decided_by: by,
      condition,
      at,
    });
    const all = [
      q({
        id: 'qry-111111',
        status: 'accepted',
        decision: d('2026-11-29T09:00:00.000Z', 'condition:interpreter', 'c1'),
      }),
      q({
        id: 'qry-222222',
        from: 'bob',
        status: 'rejected',
        decision: d('2026-11-30T09:00:00.000Z', 'manual:@o', null),
      }),
      q({ id: 'qry-333333', status: 'pending' }),
    ];
    expect(decisionLog(all, {}).map((x) => x.id)).toEqual(['qry-222222', 'qry-111111']);
    expect(decisionLog(all, { kind: 'automatic' }).map((x) => x.id)).toEqual(['qry-111111']);
    expect(decisionLog(all, { kind: 'manual', asker: '@bob' }).map((x) => x.id)).toEqual(['qry-222222']);
    expect(decisionLog(all, { condition: 'c1' }).map((x) => x.id)).toEqual(['qry-111111']);
    expect(decisionLog(all, { to: '2026-11-29' }).map((x) => x.id)).toEqual(['qry-111111']);
    expect(decisionLog(all, { from: '2026-11-30' }).map((x) => x.id)).toEqual(['qry-222222']);
  });

  it('sends PDFs as base64 and text as text, and refuses other files', () => {
    expect(toSourceContent('a.pdf', new Uint8Array([37, 80, 68, 70]))).toBe('JVBERg==');
    expect(toSourceContent('a.md', new TextEncoder().encode('# Hi'))).toBe('# Hi');
    expect(() => toSourceContent('bad.exe', new Uint8Array())).toThrow(
      "'bad.exe' is not a text file: upload plain text (.txt), Markdown (.md), HTML (.html) or PDF (.pdf).",
    );
  });

  it('keeps sessions server-side: the cookie is a random id, the store holds only sealed content by hashed id', async () => {
    const now = 0;
    const secret = 'a-shared-console-secret-of-32-chars!';
    const shared = new MemorySessions(() => now);
    const writes: Array<[string, string]> = [];
    const spy = {
      get: (h: string) => shared.get(h),
      put: async (h: string, v: string) => {
        writes.push([h, v]);
        await shared.put(h, v);
      },
      delete: (h: string) => shared.delete(h),
    };
    const issuing = new SessionStore(secret, spy, () => now);
    const replica = new SessionStore(secret, shared, () => now);
    const other = new SessionStore('another-secret-another-secret-0000', shared, () => now);
    const s = await issuing.create('lore_sk_x', { id: 'a', handle: 'a', node: 'n' });
    expect(s.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(s.id, 'base64url').toString('latin1')).not.toContain('lore_sk');
    // What the store holds names neither the id nor the key.
    const [[hash, value]] = writes as [[string, string]];
    expect(hash).not.toContain(s.id);
    expect(value).not.toContain('lore_sk');
    expect(Buffer.from(value, 'base64').toString('latin1')).not.toContain('lore_sk');
    expect(Buffer.from(value, 'base64').toString('latin1')).not.toContain(s.csrf);

    expect(await replica.get(s.id)).toMatchObject({ key: 'lore_sk_x', csrf: s.csrf, agent: { handle: 'a' } });
    // Another secret cannot open it; forged, guessed and malformed ids name nothing.
    expect(await other.get(s.id)).toBeUndefined();
    expect(await replica.get(token())).toBeUndefined();
    expect(await replica.get(`${s.id.slice(0, -1)}${s.id.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(await replica.get(hash)).toBeUndefined();
    expect(await replica.get('not-a-session')).toBeUndefined();
    expect(await replica.get(undefined)).toBeUndefined();
    // A sealed entry moved under another session's hash does not open there.
    const t = await issuing.create('lore_sk_y', { id: 'b', handle: 'b', node: 'n' });
    const tHash = writes[1]![0];
    await shared.put(tHash, value);
    expect(await replica.get(t.id)).toBeUndefined();

    // Sign-out on one store is sign-out on every store that shares the backend.
    await issuing.drop(s.id);
    expect(await replica.get(s.id)).toBeUndefined();
  });

  it('ends a session after 30 idle minutes or 12 hours in all, whichever comes first', async () => {
    let now = 0;
    const store = new SessionStore(
      'a-shared-console-secret-of-32-chars!',
      new MemorySessions(() => now),
      () => now,
    );
    const idle = await store.create('lore_sk_x', { id: 'a', handle: 'a', node: 'n' });
    now += 29 * 60 * 1000;
    expect(await store.get(idle.id)).toBeDefined();
    now += 29 * 60 * 1000;
    // Used 29 minutes ago: still alive, its last use moved forward.
    expect(await store.get(idle.id)).toBeDefined();
    now += 31 * 60 * 1000;
    expect(await store.get(idle.id)).toBeUndefined();

    now = 0;
    const busy = await store.create('lore_sk_x', { id: 'a', handle: 'a', node: 'n' });
    for (let m = 0; m < 12 * 60 - 20; m += 20) {
      now = m * 60 * 1000;
      expect(await store.get(busy.id)).toBeDefined();
    }
    now = 12 * 60 * 60 * 1000 + 1;
    expect(await store.get(busy.id)).toBeUndefined();
  });

  it('re-reads an inbox on bus hints, and on a timer only while the bus is away', async () => {
    const bus = new MemoryBus();
    const hints = new LiveHints();
    await hints.listen(bus, 20);
    let reads = 0;
    let inbox = 'a';
    const seen: string[] = [];
    const ac = new AbortController();
    const watching = watchInbox({
      hints,
      signal: ac.signal,
      pollMs: 20,
      read: async () => {
        reads++;
        return inbox;
      },
      changed: async (fp) => {
        seen.push(fp);
      },
    });
    await expect.poll(() => reads).toBe(1);
    // Live: the timer reads nothing, however long it runs.
    await new Promise((r) => setTimeout(r, 200));
    expect(reads).toBe(1);
    inbox = 'a,b';
    await bus.publish({
      id: 'evt-1',
      subject: 'lore.queries.question.asked',
      occurredAt: new Date().toISOString(),
      producer: { node: 'n', service: 'queries' },
      payload: {},
    });
    await expect.poll(() => seen).toEqual(['a,b']);
    // The bus stops answering: the timer takes over until it is back.
    bus.ping = async () => {
      throw new Error('down');
    };
    await expect.poll(() => hints.live).toBe(false);
    const before = reads;
    await expect.poll(() => reads).toBeGreaterThanOrEqual(before + 4);
    inbox = 'a,b,c';
    await expect.poll(() => seen).toEqual(['a,b', 'a,b,c']);
    ac.abort();
    await watching;
    await hints.close();
    await bus.close();
  });

  it('re-reads an inbox only for events that may concern its agent', () => {
    const ev = (payload: unknown) => ({
      id: 'e',
      subject: 'lore.queries.query.decided',
      occurredAt: '',
      producer: { node: 'n', service: 'queries' },
      payload,
    });
    expect(concerns(ev({ recipients: [{ id: 'a' }, { id: 'b' }] }), 'b')).toBe(true);
    expect(concerns(ev({ recipients: [{ id: 'a' }] }), 'b')).toBe(false);
    expect(concerns(ev({ recipientId: 'b', askerId: 'a' }), 'b')).toBe(true);
    expect(concerns(ev({ recipientId: 'a', askerId: 'b' }), 'b')).toBe(false);
    expect(concerns(ev({ something: 1 }), 'b')).toBe(true);
    expect(concerns(undefined, 'b')).toBe(true);
  });
});
