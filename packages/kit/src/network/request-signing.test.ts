import { describe, expect, it } from 'vitest';
import type { LoreConfig } from '../config.js';
import { loadNodeIdentity } from '../node.js';
import { tempDir } from '../testing/index.js';
import { RequestSigner, RequestVerifier, SIGNED_REQUESTS, signedSubject } from './request-signing.js';

const identity = (id: string) => {
  const dir = tempDir('lore-request-signing-');
  return loadNodeIdentity({ LORE_DATA_DIR: dir.path, LORE_NODE_ID: id } as LoreConfig);
};

describe('signed requests', () => {
  const node = identity('n1');
  const payload = { queryId: 'q1', recipient: { id: 'a1', handle: 'bob' } };

  it('covers the requests that release, read or vouch for what is private', () => {
    expect([...SIGNED_REQUESTS].sort()).toEqual([
      'rpc.approvals.evaluate',
      'rpc.knowledge.retrieve',
      'rpc.knowledge.source_facts',
      'rpc.users.verify_key',
    ]);
    expect(signedSubject('rpc.approvals.evaluate.node.n1')).toBe('rpc.approvals.evaluate');
  });

  it('accepts its own node signature once, on either form of the subject', async () => {
    const verifier = new RequestVerifier(node);
    const header = new RequestSigner(node).sign('rpc.approvals.evaluate.node.n1', payload);
    expect(await verifier.check('rpc.approvals.evaluate', payload, header)).toEqual({ ok: true });
    expect(await verifier.check('rpc.approvals.evaluate', payload, header)).toEqual({
      ok: false,
      reason: 'replayed',
    });
  });

  it('refuses what is unsigned, malformed, of another node, changed, moved or stale', async () => {
    const verifier = new RequestVerifier(node);
    const sign = (p: unknown = payload, subject = 'rpc.approvals.evaluate') =>
      new RequestSigner(node).sign(subject, p);
    const check = (header: string | undefined, p: unknown = payload, subject = 'rpc.approvals.evaluate') =>
      verifier.check(subject, p, header);
    expect(await check(undefined)).toEqual({ ok: false, reason: 'unsigned' });
    expect(await check('n1 1 2')).toEqual({ ok: false, reason: 'malformed signature' });
    // Another node's key, claiming its own id or this node's.
    const other = identity('n2');
    expect(await check(new RequestSigner(other).sign('rpc.approvals.evaluate', payload))).toMatchObject({
      ok: false,
      reason: 'signed by node n2, not this node',
    });
    const impostor = identity('n1');
    expect(await check(new RequestSigner(impostor).sign('rpc.approvals.evaluate', payload))).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    // A signed "rejected" turned into "accepted"; a retrieve signature used to decide.
    expect(await check(sign({ ...payload, outcome: 'rejected' }))).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(await check(sign(payload, 'rpc.knowledge.retrieve'))).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    // Made two minutes ago (or in two minutes).
    for (const skew of [-120_000, 120_000]) {
      const stale = new RequestSigner(node, () => Date.now() + skew).sign('rpc.approvals.evaluate', payload);
      expect(await check(stale)).toEqual({ ok: false, reason: 'signature outside the time window' });
    }
  });

  it('accepts another process of this node whose key the directory holds, and no other', async () => {
    const sibling = identity('n1');
    const held: string[] = [];
    const verifier = new RequestVerifier(node, async () => held);
    const header = () => new RequestSigner(sibling).sign('rpc.users.verify_key', { keyHash: 'x' });
    expect(await verifier.check('rpc.users.verify_key', { keyHash: 'x' }, header())).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    held.push(sibling.publicKey);
    expect(await verifier.check('rpc.users.verify_key', { keyHash: 'x' }, header())).toEqual({ ok: true });
  });
});
