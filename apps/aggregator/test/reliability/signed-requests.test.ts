/**
 * A node on a NATS without authentication (`LORE_NATS_INSECURE=true`, the all-in-one over a
 * real nats-server), and an anonymous participant on that NATS who knows the subjects and
 * listens to every request. The requests that release, read or vouch for what is private must
 * be refused unless the node's own key signed them: nothing on the bus decides a query (the
 * owner's accept is the queries service's own tool, so a decide request, signed or not, finds no
 * one to answer it and a held answer stays held), a sniffed signed evaluation may not be changed
 * or replayed, and retrieve, source facts, evaluate and verify_key answer nothing. The figure
 * reported is how many attempts got through (0).
 */
import { join } from 'node:path';
import { type LoreConfig, loadNodeIdentity, RequestSigner } from '@lore/kit';
import { freePort, NatsServerProcess, tempDir } from '@lore/kit/testing';
import { connect, headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, type Lore, ok, startLore, waitFor } from './support.js';

const NODE = 'signed-test';
const SIGNATURE = 'Lore-Request-Signature';

type Peer = { peer: string; status: string };
type Asked = { questions: Array<{ id: string; peers: Peer[] }> };
type Reply = { ok: boolean; value?: unknown; error?: { message: string; code: number } };

describe('requests that act as the node, from an anonymous participant on an open NATS', () => {
  const dir = tempDir('lore-signed-');
  let nats: NatsServerProcess;
  let l: Lore;
  let alice: Agent;
  let bob: Agent;
  let spy: NatsConnection;
  /** Every request seen on the open NATS, as a participant listening to `rpc.>` sees it. */
  const sniffed: Msg[] = [];
  const ids: string[] = [];
  const attempts: string[] = [];
  const gotThrough: string[] = [];

  /** A raw request as the attacker sends it; anything but a refusal (403) got through. */
  const attempt = async (what: string, subject: string, payload: unknown, signature?: string) => {
    attempts.push(what);
    const h = headers();
    if (signature) h.set(SIGNATURE, signature);
    const reply = (
      await spy.request(subject, JSON.stringify(payload), { timeout: 10_000, headers: h })
    ).json<Reply>();
    if (reply.ok || reply.error?.code !== 403)
      gotThrough.push(`${what}: ${JSON.stringify(reply).slice(0, 200)}`);
    else expect(reply.error.message).toMatch(/must be signed by this node's key/);
  };
  /** A raw request nothing on the bus may answer at all. */
  const unanswered = async (what: string, subject: string, payload: unknown, signature?: string) => {
    attempts.push(what);
    const h = headers();
    if (signature) h.set(SIGNATURE, signature);
    const reply = await spy.request(subject, JSON.stringify(payload), { timeout: 5_000, headers: h }).then(
      (m) => m.json<Reply>(),
      () => null,
    );
    if (reply) gotThrough.push(`${what}: ${JSON.stringify(reply).slice(0, 200)}`);
  };
  const bobSees = async () =>
    (await ok<Asked>(bob.client, 'cqListAskedQuestions', { limit: 10 })).data.questions.filter((q) =>
      ids.includes(q.id),
    );

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required for this test');
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'));
    await nats.start();
    l = await startLore(
      { NATS_URL: nats.url, LORE_NATS_INSECURE: 'true', LORE_NODE_ID: NODE, LORE_RATE_LIMITS: 'false' },
      join(dir.path, 'node'),
    );
    spy = await connect({ servers: nats.url });
    spy.subscribe('rpc.>', {
      callback: (_err, msg) => {
        sniffed.push(msg);
      },
    });
    alice = await l.register('alice');
    bob = await l.register('bob');
    // A source shared manual: every answer from it waits for alice.
    await ok(alice.client, 'updateKnowledgeSources', {
      file_name: 'vault.md',
      file_content:
        '# Vault\n\nThe vault of the harbour office opens with the combination recorded in the blue ledger; ' +
        'the night guard keeps the ledger in the locked drawer beside the harbour charts.',
      sharing: 'manual',
    });
    for (const topic of ['harbour office vault', 'blue ledger drawer']) {
      const q = await ok<{ query_id: string }>(bob.client, 'cqAskQuestion', {
        question: `Where is the combination of the ${topic} kept?`,
        peers: ['alice'],
      });
      ids.push(q.data.query_id);
    }
    await waitFor(
      "alice's drafts, held for her",
      async () =>
        (
          await ok<Record<string, { status: string; draft: unknown }>>(
            alice.client,
            'cqListRequestedQueries',
            {},
          )
        ).data,
      (r) => ids.every((id) => ['pending', 'held'].includes(r[id]?.status ?? '') && !!r[id]?.draft),
      30_000,
    );
  }, 120_000);

  afterAll(async () => {
    console.info(
      `signed requests: ${gotThrough.length} of ${attempts.length} attempts got through${gotThrough.length ? `: ${gotThrough.join('; ')}` : ''}`,
    );
    await spy?.close();
    await l?.close();
    await nats?.kill();
    dir.cleanup();
  });

  it('answers no decide from the bus, signed or not; the held answer stays held', async () => {
    const decide = {
      queryId: ids[0],
      recipientId: alice.id,
      outcome: 'accepted',
      decidedBy: 'manual:@alice',
      condition: null,
      reason: 'ok',
    };
    await unanswered('unsigned decide', 'rpc.queries.decide', decide);
    await unanswered('unsigned decide on the node form', `rpc.queries.decide.node.${NODE}`, decide);
    const forger = loadNodeIdentity({
      LORE_DATA_DIR: join(dir.path, 'forger'),
      LORE_NODE_ID: NODE,
    } as LoreConfig);
    await unanswered(
      'decide signed by a made-up key of this node id',
      'rpc.queries.decide',
      decide,
      new RequestSigner(forger).sign('rpc.queries.decide', decide),
    );
    const [q] = await bobSees();
    expect(q!.peers.find((p) => p.peer === 'alice')?.status).not.toBe('answered');
    expect(gotThrough).toEqual([]);
  });

  it('answers no private read or key check to an unsigned request', async () => {
    await attempt('unsigned retrieve of alice’s passages', 'rpc.knowledge.retrieve', {
      agentId: alice.id,
      query: 'vault combination',
      limit: 5,
    });
    await attempt('unsigned source facts', 'rpc.knowledge.source_facts', {
      agentId: alice.id,
      sources: ['vault.md'],
    });
    await attempt('unsigned key verification', 'rpc.users.verify_key', { keyHash: 'f'.repeat(64) });
    await attempt('unsigned gate evaluation', 'rpc.approvals.evaluate', { queryId: ids[0] });
    expect(gotThrough).toEqual([]);
  });

  it('releases on the owner’s own decision, which crosses no bus; a sniffed signed evaluation can be neither changed nor replayed', async () => {
    const before = sniffed.length;
    await ok(alice.client, 'cqAcceptQuery', { id: ids[0] });
    await waitFor(
      'bob’s first answer',
      bobSees,
      (qs) => qs.find((q) => q.id === ids[0])?.peers[0]?.status === 'answered',
      30_000,
    );
    expect(sniffed.slice(before).some((m) => m.subject.startsWith('rpc.queries.decide'))).toBe(false);
    const signed = sniffed.find(
      (m) => m.subject.startsWith('rpc.approvals.evaluate') && m.headers?.get(SIGNATURE),
    );
    expect(signed, 'the evaluation of a draft crossed the open NATS signed').toBeDefined();
    const header = signed!.headers!.get(SIGNATURE);
    const original = signed!.json<Record<string, unknown>>();
    await attempt(
      'the sniffed evaluation aimed at another question',
      signed!.subject,
      { ...original, question: 'What is the vault combination?' },
      header,
    );
    await attempt('the sniffed evaluation replayed', signed!.subject, original, header);
    expect((await bobSees()).find((q) => q.id === ids[1])?.peers[0]?.status).not.toBe('answered');
    expect(gotThrough).toEqual([]);
  });
});
