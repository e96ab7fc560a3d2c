import type { TextGenerator } from '@lore/kit';
import { limiter, UNAVAILABLE_VERDICT, UNPARSABLE_VERDICT } from '@lore/kit';
import type { ConditionUnderstanding, EvaluateQueryReply, EvaluateQueryRequest } from '@lore/schema';
import type { ConditionRow } from './conditions.js';
import { describe, evaluate, type Facts, type Interpretation, interpret, type Tri } from './interpret.js';

export interface Check {
  condition: string;
  effect: 'allow' | 'deny';
  result: Tri;
  reason: string;
}

/**
 * Conditions a language model judges at once: a broadcast asks for hundreds of evaluations
 * together, and a judgment that waits past the generator's timeout counts as no verdict, which
 * leaves its query pending.
 */
export const MODEL_JUDGMENTS_IN_FLIGHT = 4;

/**
 * Decides a query from its recipient's conditions: any matching deny rejects; otherwise any
 * matching allow accepts, unless a deny might apply but cannot be decided; otherwise the
 * query waits for its recipient. With a language model endpoint each condition is judged by
 * the model (temperature 0, strict JSON, the query as quoted data); without one the built-in
 * interpreter decides what it can, and what it cannot leaves the query pending.
 */
export class Evaluator {
  private readonly modelTurn = limiter(MODEL_JUDGMENTS_IN_FLIGHT);

  constructor(private readonly textgen: TextGenerator) {}

  get judge(): 'model' | 'interpreter' {
    return this.textgen.hasEndpoint ? 'model' : 'interpreter';
  }

  /** Read a condition once, when it is added; `isHandle` says which words are agents' handles. */
  interpret(sentence: string, isHandle: (h: string) => boolean): Interpretation {
    return interpret(sentence, isHandle);
  }

  /** How a condition is understood, for the owner at add time and in listings. */
  understand(i: Interpretation, judge = this.judge): ConditionUnderstanding {
    const d = describe(i);
    const read = `${d.effect} — senders: ${d.senders}; topics: ${d.topics}`;
    if (judge === 'model')
      return {
        effect: d.effect,
        judged_by: 'model',
        senders: d.senders,
        topics: d.topics,
        undecidable: [],
        summary: `${d.effect} rule, judged by the language model for each query (without a model it would read: senders ${d.senders}; topics ${d.topics}).`,
      };
    const cannot = d.undecidable.length
      ? ` Without a language model this cannot be decided: ${d.undecidable.map((u) => `"${u}"`).join(', ')} — queries it might cover stay pending for you to decide.`
      : '';
    return {
      effect: d.effect,
      judged_by: 'interpreter',
      senders: d.senders,
      topics: d.topics,
      undecidable: d.undecidable,
      summary: `${read}.${cannot}`,
    };
  }

  async evaluate(conditions: ConditionRow[], req: EvaluateQueryRequest): Promise<EvaluateQueryReply> {
    if (!conditions.length)
      return {
        outcome: 'pending',
        decidedBy: 'none',
        condition: null,
        reason: 'No auto-approval conditions: waiting for a manual decision.',
        checks: [],
      };
    const judge = this.judge;
    const checks =
      judge === 'model' ? await this.byModel(conditions, req) : this.byInterpreter(conditions, req);
    const decidedBy = `condition:${judge}`;
    const deny = checks.find((c) => c.effect === 'deny' && c.result === 'match');
    if (deny)
      return {
        outcome: 'rejected',
        decidedBy,
        condition: deny.condition,
        reason: `Rejected by "${deny.condition}": ${deny.reason}.`,
        checks,
      };
    const allow = checks.find((c) => c.effect === 'allow' && c.result === 'match');
    const doubtfulDeny = checks.find((c) => c.effect === 'deny' && c.result === 'unknown');
    if (allow && !doubtfulDeny)
      return {
        outcome: 'accepted',
        decidedBy,
        condition: allow.condition,
        reason: `Accepted by "${allow.condition}": ${allow.reason}.`,
        checks,
      };
    const reason = doubtfulDeny
      ? `Pending: "${doubtfulDeny.condition}" might reject it but ${doubtfulDeny.reason}.`
      : checks.some((c) => c.result === 'unknown')
        ? `Pending: no condition clearly applies (${checks
            .filter((c) => c.result === 'unknown')
            .map((c) => `"${c.condition}": ${c.reason}`)
            .join('; ')}).`
        : 'Pending: none of your conditions matches; waiting for a manual decision.';
    return { outcome: 'pending', decidedBy: 'none', condition: null, reason, checks };
  }

  private byInterpreter(conditions: ConditionRow[], req: EvaluateQueryRequest): Check[] {
    const facts: Facts = {
      askerHandle: req.asker.handle,
      profile: req.asker.profile,
      question: req.question,
      sources: req.draft.sources,
      excerpts: req.draft.excerpts,
    };
    return conditions.map((c) => {
      const r = evaluate(c.interpretation, facts);
      return { condition: c.sentence, effect: c.interpretation.effect, result: r.result, reason: r.reason };
    });
  }

  private async byModel(conditions: ConditionRow[], req: EvaluateQueryRequest): Promise<Check[]> {
    const p = req.asker.profile;
    const asker = p
      ? `@${req.asker.handle} (${p.displayName}). Bio: ${p.bio || '—'}. Skills: ${p.skills.join(', ') || '—'}. Interests: ${p.interests.join(', ') || '—'}.`
      : `@${req.asker.handle} (profile unavailable)`;
    return Promise.all(
      conditions.map(async (c): Promise<Check> => {
        // The rule's direction comes from its wording; the model only says whether it applies.
        const effect = c.interpretation.effect;
        const v = await this.modelTurn(() =>
          this.textgen.judge({
            condition: c.sentence,
            question: req.question,
            asker,
            draft: req.draft.text,
          }),
        );
        if (!v || v.reason === UNAVAILABLE_VERDICT.reason || v.reason === UNPARSABLE_VERDICT.reason)
          return {
            condition: c.sentence,
            effect,
            result: 'unknown',
            reason: v ? v.reason : 'no language model available',
          };
        return {
          condition: c.sentence,
          effect,
          result: v.matches ? 'match' : 'no-match',
          reason: `the model judged: ${v.reason}`,
        };
      }),
    );
  }
}
