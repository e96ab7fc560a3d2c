import {
  createService,
  type LoreService,
  migrationsFolder,
  nodeLocalBus,
  openServiceStore,
  type ServiceDeps,
} from '@lore/kit';
import { HANDLE_PATTERN } from '@lore/schema/common';
import { createTextGenerator } from '@lore/textgen';
import { approvalsSettings } from './config.js';
import { ConditionRepository } from './domain/conditions.js';
import { DecisionRepository } from './domain/decisions.js';
import { Evaluator } from './domain/evaluator.js';
import { evaluateRpc } from './handlers/evaluate-rpc.js';
import { onQueryDecided } from './handlers/query-decided.js';
import { statsHandler } from './handlers/stats.js';
import type { ApprovalsPorts } from './ports.js';
import * as tables from './tables.js';
import { cqAcceptQuery } from './tools/cqAcceptQuery.js';
import { cqAddAutoApprovalCondition } from './tools/cqAddAutoApprovalCondition.js';
import { cqInboxApprove } from './tools/cqInboxApprove.js';
import { cqInboxReject } from './tools/cqInboxReject.js';
import { cqListAutoApprovalConditions } from './tools/cqListAutoApprovalConditions.js';
import { cqRejectQuery } from './tools/cqRejectQuery.js';
import { cqRemoveAutoApprovalCondition } from './tools/cqRemoveAutoApprovalCondition.js';

export const APPROVALS_VERSION = '0.1.0';

export const approvalsTools = [
  cqAddAutoApprovalCondition,
  cqRemoveAutoApprovalCondition,
  cqListAutoApprovalConditions,
  cqAcceptQuery,
  cqRejectQuery,
  // The inbox app's buttons (app-only; the app itself is served by queries).
  cqInboxApprove,
  cqInboxReject,
];

/** The approvals service: each agent's auto-approval conditions, manual decisions, and the decision log. */
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
  const decisions = new DecisionRepository(db);
  const evaluator = new Evaluator(textgen);
  const directory = deps.directory;
  const ports: ApprovalsPorts = {
    conditions,
    decisions,
    evaluator,
    bus,
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
      'Decide what leaves your knowledge: add plain-language auto-approval conditions, or accept and reject pending queries ' +
      '(cqListRequestedQueries shows them) with cqAcceptQuery and cqRejectQuery.',
    tools: approvalsTools,
    ports,
    deps,
    db,
    outbox,
    handlers: [
      evaluateRpc(conditions, evaluator, bus, log),
      onQueryDecided(db, decisions, deps.nodeId),
      statsHandler(conditions, decisions, () => service.metrics.totalCalls()),
    ],
  });
  return service;
}
