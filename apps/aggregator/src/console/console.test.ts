import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asset } from './assets.js';
import { HTMX_FILE } from './layout.js';
import { decisionLog } from './pages/conditions.js';
import { type ReceivedQuery, whyWaiting } from './pages/inbox-view.js';
import { toSourceContent } from './pages/knowledge.js';
import { SessionStore } from './session.js';

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
    expect(() => toSourceContent('a.exe', new Uint8Array())).toThrow(/Upload text/);
  });

  it('seals sessions: any store with the secret opens them, nothing else does, and they expire', () => {
    let now = 0;
    const secret = 'a-shared-console-secret-of-32-chars!';
    const issuing = new SessionStore(secret, () => now);
    const replica = new SessionStore(secret, () => now);
    const other = new SessionStore('another-secret-another-secret-0000', () => now);
    const s = issuing.create('lore_sk_x', { id: 'a', handle: 'a', node: 'n' });
    expect(s.id).not.toContain('lore_sk_x');
    expect(Buffer.from(s.id, 'base64url').toString('latin1')).not.toContain('lore_sk');
    expect(replica.get(s.id)).toMatchObject({ key: 'lore_sk_x', csrf: s.csrf, agent: { handle: 'a' } });
    expect(other.get(s.id)).toBeUndefined();
    const raw = Buffer.from(s.id, 'base64url');
    raw[20] = raw[20]! ^ 1;
    expect(replica.get(raw.toString('base64url'))).toBeUndefined();
    expect(replica.get('not-a-session')).toBeUndefined();
    issuing.drop(s.id);
    expect(issuing.get(s.id)).toBeUndefined();
    now += 13 * 60 * 60 * 1000;
    expect(replica.get(s.id)).toBeUndefined();
  });
});
