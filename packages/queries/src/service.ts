import {
  agentKeysOverBus,
  appToolMeta,
  createService,
  type LoreService,
  type ServiceDeps,
  sharedEmbedder,
  TextVectors,
} from '@lore/kit';
import { call, nodeLocalBus } from '@lore/kit/bus';
import { migrationsFolder, openServiceStore, rebuildInBackground } from '@lore/kit/db';
import { UsersProfileRpc } from '@lore/schema/profile-rpc';
import { UsersAgentKeys } from '@lore/schema/users';
import { createTextGenerator } from '@lore/textgen';
import { INBOX_APP_URI, inboxApp } from './apps/inbox.js';
import { queriesSettings } from './config.js';
import { Delivery } from './domain/delivery.js';
import { Drafter } from './domain/drafting.js';
import { Evaluation } from './domain/evaluation.js';
import { Intake } from './domain/intake.js';
import { type DropReason, Network } from './domain/network.js';
import { reindexQuestions } from './domain/question-index.js';
import { QuestionRepository } from './domain/questions.js';
import { ReceivedRepository } from './domain/received.js';
import { Retrier } from './domain/retrier.js';
import { onAnswerShared } from './handlers/answer-shared.js';
import { onAnswerWithheld } from './handlers/answer-withheld.js';
import { onQuestionAsked } from './handlers/question-asked.js';
import { statsHandler } from './handlers/stats.js';
import type { QueriesPorts } from './ports.js';
import * as tables from './tables.js';
import { cqAcceptQuery } from './tools/cqAcceptQuery.js';
import { cqAskQuestion } from './tools/cqAskQuestion.js';
import { cqInboxApprove } from './tools/cqInboxApprove.js';
import { cqInboxEditAnswer } from './tools/cqInboxEditAnswer.js';
import { cqInboxReject } from './tools/cqInboxReject.js';
import { cqListAskedQuestions } from './tools/cqListAskedQuestions.js';
import { cqListRequestedQueries } from './tools/cqListRequestedQueries.js';
import { cqRejectQuery } from './tools/cqRejectQuery.js';
import { cqSummarizeAnswers } from './tools/cqSummarizeAnswers.js';
import { cqUpdateEditAnswer } from './tools/cqUpdateEditAnswer.js';

export const QUERIES_VERSION = '0.1.0';

export const queriesTools = [
  cqAskQuestion,
  // Hosts that render MCP Apps show the inbox app with the list; the text result stays complete.
  { ...cqListRequestedQueries, meta: appToolMeta(INBOX_APP_URI) },
  cqSummarizeAnswers,
  cqUpdateEditAnswer,
  cqListAskedQuestions,
  cqAcceptQuery,
  cqRejectQuery,
  // The inbox app's buttons (app-only).
  cqInboxEditAnswer,
  cqInboxApprove,
  cqInboxReject,
];

/**
 * The queries service: questions asked here and their answers (the asker's side), queries
 * addressed to agents hosted here, their drafts, their owners' decisions and the decision log
 * (the recipient's side).
 */
export async function createQueriesService(deps: ServiceDeps): Promise<LoreService> {
  const settings = queriesSettings(deps.config);
  if (!deps.directory || !deps.node)
    throw new Error(
      'the queries service needs the network directory and the node identity (deps.directory, deps.node)',
    );
  const { db, outbox, log } = await openServiceStore(
    deps,
    'queries',
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
  let service: LoreService | undefined;
  const countDrop = (reason: DropReason) =>
    service?.metrics.droppedEnvelopes.inc({ service: 'queries', reason });
  const network = new Network(deps.directory, deps.nodeId, countDrop, log);
  const questions = new QuestionRepository(db, outbox);
  const embedder = sharedEmbedder(settings, log);
  if (embedder) questions.vectors = new TextVectors(db, 'question_vectors', embedder, log);
  const received = new ReceivedRepository(db, outbox, now);
  // Off with the other per-agent limits (LORE_RATE_LIMITS=false).
  const waitingPerAsker = deps.config.LORE_RATE_LIMITS
    ? settings.LORE_WAITING_PER_ASKER
    : Number.POSITIVE_INFINITY;
  const intake = new Intake(
    {
      db,
      received,
      drafter: new Drafter(bus, textgen),
      evaluation: new Evaluation(bus),
      network,
      retry: {
        windowMs: settings.LORE_DELIVERY_RETRY_MINUTES * 60_000,
        maxBackoffMs: settings.LORE_DELIVERY_RETRY_MAX_BACKOFF_SECONDS * 1000,
      },
      waitingPerAsker,
      now,
      log,
    },
    `queries-drafter-${deps.nodeId}`,
  );
  const retrier = new Retrier(received, intake, now, log);
  const delivery = new Delivery({ db, outbox, questions, network, now });
  const ports: QueriesPorts = {
    questions,
    received,
    network,
    textgen,
    ttlMs: settings.LORE_QUERY_TTL_HOURS * 3_600_000,
    // Off with the other per-agent limits (LORE_RATE_LIMITS=false).
    waitingPerAsker: deps.config.LORE_RATE_LIMITS
      ? settings.LORE_WAITING_PER_ASKER
      : Number.POSITIVE_INFINITY,
    now,
    async askerProfile(agentId) {
      try {
        const r = await call(bus, UsersProfileRpc.traits, { agentId }, { timeoutMs: 3000 });
        return r.agent
          ? {
              displayName: r.agent.displayName,
              bio: r.agent.bio,
              skills: r.agent.skills,
              interests: r.agent.interests,
            }
          : null;
      } catch (err) {
        // Without the profile, conditions about the asker's traits leave the query pending.
        log.warn({ err: (err as Error).message }, 'asker profile unavailable');
        return null;
      }
    },
  };
  service = createService({
    name: 'queries',
    version: QUERIES_VERSION,
    title: 'Lore queries',
    instructions:
      'Ask peers with cqAskQuestion, read their answers with cqSummarizeAnswers or cqListAskedQuestions. Queries addressed ' +
      'to you are in cqListRequestedQueries; edit a drafted answer with cqUpdateEditAnswer, then accept or reject it with ' +
      'cqAcceptQuery and cqRejectQuery.',
    tools: queriesTools,
    resources: [inboxApp()],
    ports,
    deps,
    agentKeys: agentKeysOverBus(UsersAgentKeys),
    db,
    outbox,
    handlers: [
      onQuestionAsked(intake),
      onAnswerShared(delivery, deps.nodeId),
      onAnswerWithheld(delivery, deps.nodeId),
      statsHandler(questions, received, () => service?.metrics.totalCalls() ?? Promise.resolve(0)),
    ],
    async onStart() {
      const running = retrier.start();
      // Questions without a vector of the configured model get one in the background.
      await questions.refreshVectors();
      // A question index emptied by a migration is rewritten in the background (see reindexQuestions).
      const stopReindex = rebuildInBackground(log, 'question search index', async (signal) => ({
        questions: await reindexQuestions(db, { signal }),
      }));
      return async () => {
        await stopReindex();
        await questions.vectors?.close();
        await running.close();
      };
    },
  });
  return service;
}
