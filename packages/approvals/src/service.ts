import { agentKeysOverBus, createService, type LoreService, type ServiceDeps } from '@lore/kit';
import { nodeLocalBus } from '@lore/kit/bus';
import { migrationsFolder, openServiceStore } from '@lore/kit/db';
import { HANDLE_PATTERN } from '@lore/schema/common';
import { UsersAgentKeys } from '@lore/schema/users';
import { createTextGenerator } from '@lore/textgen';
import { approvalsSettings } from './config.js';
import { ConditionRepository } from './domain/conditions.js';
import { Evaluator } from './domain/evaluator.js';
import { evaluateRpc } from './handlers/evaluate-rpc.js';
import { statsHandler } from './handlers/stats.js';
import type { ApprovalsPorts } from './ports.js';
import * as tables from './tables.js';
import { cqAddAutoApprovalCondition } from './tools/cqAddAutoApprovalCondition.js';
import { cqListAutoApprovalConditions } from './tools/cqListAutoApprovalConditions.js';
import { cqRemoveAutoApprovalCondition } from './tools/cqRemoveAutoApprovalCondition.js';

export const APPROVALS_VERSION = '0.1.0';

export const approvalsTools = [
  cqAddAutoApprovalCondition,
  cqRemoveAutoApprovalCondition,
  cqListAutoApprovalConditions,
];

/**
 * The approvals service: each agent's auto-approval conditions, and the judgement of a drafted
 * query against them (`ApprovalsRpc.evaluate`). Accepting, rejecting and the decision log belong
 * to the queries service, which owns the received queries.
 */
export async function createApprovalsService(deps: ServiceDeps): Promise<LoreService> {
  const settings = approvalsSettings(deps.config);
  const { db, outbox, log } = await openServiceStore(
    deps,
    'approvals',
    tables,
    migrationsFolder(import.meta.url),
  );
  const now = Date.now;
  const bus = nodeLocalBus(deps.bus, deps.nodeId, deps);
  const textgen =
    deps.textgen ??
    createTextGenerator({
      baseUrl: settings.LORE_LLM_BASE_URL,
      model: settings.LORE_LLM_MODEL,
      apiKey: settings.LORE_LLM_API_KEY,
    });
  const conditions = new ConditionRepository(db, now);
  const evaluator = new Evaluator(textgen);
  const directory = deps.directory;
  const ports: ApprovalsPorts = {
    conditions,
    evaluator,
    async handlesIn(sentence) {
      if (!directory) return new Map();
      const candidates = [...new Set(sentence.toLowerCase().match(/[a-z0-9_]+/g) ?? [])]
        .filter((w) => HANDLE_PATTERN.test(w))
        .slice(0, 60);
      const held = await Promise.all(
        candidates.map(async (w) => [w, (await directory.lookupHandle(w))?.agentId] as const),
      );
      return new Map(held.filter((e): e is readonly [string, string] => e[1] !== undefined));
    },
    async allHandles() {
      return directory ? (await directory.listHandles()).map((h) => h.handle) : [];
    },
  };
  const service: LoreService = createService({
    name: 'approvals',
    version: APPROVALS_VERSION,
    title: 'Lore approvals',
    instructions:
      'Decide what leaves your knowledge automatically: add plain-language auto-approval conditions. Queries they leave ' +
      'waiting are in cqListRequestedQueries; accept or reject them with cqAcceptQuery and cqRejectQuery.',
    tools: approvalsTools,
    ports,
    deps,
    agentKeys: agentKeysOverBus(UsersAgentKeys),
    db,
    outbox,
    handlers: [
      evaluateRpc(conditions, evaluator, bus, log),
      statsHandler(conditions, () => service.metrics.totalCalls()),
    ],
  });
  return service;
}
