import { answer, type EventBus } from '@lore/kit/bus';
import { KnowledgeRpc } from '@lore/schema/knowledge-events';
import type { SensitivityClassifier } from '../domain/sensitivity-classifier.js';
import type { SourceSharing } from '../domain/sharing.js';
import type { SourceSubjects } from '../domain/source-subjects.js';
import type { TopicMeaningScorer } from '../domain/topic-meaning.js';

/**
 * `KnowledgeRpc.sourceFacts`: the approvals service asks what the sources a draft cites are,
 * what the passages its excerpts come from were classified as at ingest, and what each source
 * is about by meaning, and how close each topic the owner's conditions name is to the draft and
 * those passages.
 */
export const sourceFactsHandler =
  (
    sharing: SourceSharing,
    sensitivity: SensitivityClassifier,
    subjects: SourceSubjects,
    meaning: TopicMeaningScorer,
  ) =>
  (bus: EventBus) =>
    answer(bus, KnowledgeRpc.sourceFacts, async (req) => {
      const [facts, passages, about] = await Promise.all([
        sharing.facts(req.agentId, req.sources),
        sensitivity.passagesOf(req.agentId, req.excerpts),
        subjects.of(req.agentId, req.sources).catch(() => null),
      ]);
      const sources = facts.map((f) => ({ ...f, subjects: about?.get(f.name) ?? null }));
      // The topics the owner's conditions name, against what would be released.
      const topics = await meaning.score(req.topics, req.draft, passages, req.requests, req.agentId);
      return { sources, passages, meaning: topics };
    });
