/** One node of the queries service for tests: users, queries, and contract doubles of knowledge and approvals. */
import { randomUUID } from 'node:crypto';
import {
  EnvelopeSigner,
  loadNodeIdentity,
  MemoryDirectory,
  type NodeIdentity,
  type ServiceDeps,
} from '@lore/kit';
import { appFetch, connectClient, ok, testDeps } from '@lore/kit/testing';
import {
  ApprovalsRpc,
  EvaluateQueryRequest,
  type EventDefinition,
  type EventEnvelope,
  KnowledgeRetrieveRequest,
  KnowledgeRpc,
} from '@lore/schema';
import { tokenize } from '@lore/search';
import { createUsersService } from '@lore/users/testing';
import { expect } from 'vitest';
import type { z } from 'zod';
import { createQueriesService } from '../src/index.js';

export const QUESTION = 'What are the latest developments in quantum computing?';
export const BOB_DOC = {
  source: 'quantum_computing.txt',
  text:
    'The latest developments in quantum computing include error-corrected logical qubits. ' +
    'Quantum computing researchers demonstrated below-threshold error rates on superconducting processors in 2024.',
};

/** One node: users and queries on an in-process bus, with a directory and a signing identity. */
export async function startNode(env: Record<string, string> = {}) {
  const t = testDeps({ LORE_RATE_LIMITS: 'false', ...env });
  const node = loadNodeIdentity(t.deps.config);
  const directory = new MemoryDirectory();
  await directory.registerNode(node.id, node.publicKey);
  const deps: ServiceDeps = { ...t.deps, nodeId: node.id, node, directory };
  const users = await createUsersService(deps);
  const queries = await createQueriesService(deps);
  await users.start();
  await queries.start();

  // The knowledge reply as its contract states it (the real service is exercised through the
  // aggregator): passages sharing at least two content words with the question are relevant.
  const docs = new Map<string, Array<{ source: string; text: string }>>();
  const retrievals: string[] = [];
  // Lets a test slow a retrieval down or make it fail (a busy or unavailable knowledge service).
  const hooks: {
    beforeRetrieve?: (agentId: string) => Promise<void>;
    beforeEvaluate?: (recipientHandle: string) => Promise<void>;
  } = {};
  await deps.bus.reply(KnowledgeRpc.retrieve.subject, async (payload) => {
    const req = KnowledgeRetrieveRequest.parse(payload);
    retrievals.push(req.agentId);
    await hooks.beforeRetrieve?.(req.agentId);
    const q = new Set(tokenize(req.query).filter((w) => w.length > 3));
    const passages = (docs.get(req.agentId) ?? []).map((d, i) => {
      const score = new Set(tokenize(d.text).filter((w) => q.has(w))).size;
      return {
        id: `${req.agentId}:${i}`,
        source: d.source,
        text: d.text,
        headingPath: [],
        score,
        relevant: score >= 2,
      };
    });
    return { passages };
  });
  // What the recipients' conditions say (the approvals service's reply), by recipient handle.
  const verdicts = new Map<string, 'accepted' | 'rejected' | 'held'>();
  const evaluations: z.infer<typeof EvaluateQueryRequest>[] = [];
  await deps.bus.reply(ApprovalsRpc.evaluate.subject, async (payload) => {
    const req = EvaluateQueryRequest.parse(payload);
    await hooks.beforeEvaluate?.(req.recipient.handle);
    evaluations.push(req);
    const outcome = verdicts.get(req.recipient.handle);
    return outcome
      ? {
          outcome,
          decidedBy: 'condition:interpreter',
          condition: `test ${outcome}`,
          reason: `${outcome} by the test condition`,
          checks: [],
        }
      : {
          outcome: 'pending',
          decidedBy: 'none',
          condition: null,
          reason: 'No auto-approval conditions.',
          checks: [],
        };
  });

  const anon = await connectClient(appFetch(users.app));
  const join = async (handle: string, profile: Record<string, unknown> = {}) => {
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username: handle,
      email: `${handle}@example.com`,
      displayName: handle,
      ...profile,
    });
    return {
      id: r.data.agent.id,
      key: r.data.apiKey,
      q: await connectClient(appFetch(queries.app), { key: r.data.apiKey }),
    };
  };
  return {
    deps,
    node,
    directory,
    users,
    queries,
    docs,
    retrievals,
    hooks,
    verdicts,
    evaluations,
    join,
    async metrics() {
      return (await queries.fetch(new Request('http://x/metrics'))).text();
    },
    async stop() {
      await queries.stop();
      await users.stop();
      await t.cleanup();
    },
  };
}

export type Node = Awaited<ReturnType<typeof startNode>>;
export type Requested = Record<
  string,
  {
    id: string;
    from: string;
    status: string;
    draft: {
      text: string;
      citations: Array<{ source: string; excerpt: string }>;
      strategy: string;
      edited: boolean;
    } | null;
    decision: { reason: string; decided_by: string };
  }
>;
export type Asked = {
  questions: Array<{
    id: string;
    peers: Array<{ peer: string; status: string; reason?: string }>;
    answers: Array<{ peer: string; text: string; revision: number; untrusted: boolean; strategy: string }>;
  }>;
  total: number;
};

export const eventually = <T>(fn: () => Promise<T>, check: (v: T) => boolean, timeout = 10_000) =>
  expect.poll(async () => check(await fn()), { timeout, interval: 50 }).toBe(true);

export function envelope<E extends EventDefinition>(
  def: E,
  payload: z.input<E['payload']>,
  producerNode: string,
): EventEnvelope {
  return {
    id: randomUUID(),
    subject: def.subject,
    occurredAt: new Date().toISOString(),
    producer: { node: producerNode, service: 'queries' },
    payload: def.payload.parse(payload),
  };
}
export const signed = (identity: NodeIdentity, e: EventEnvelope) => new EnvelopeSigner(identity).sign(e);
