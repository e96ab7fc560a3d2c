import type { TextGenerator } from '@lore/kit';
import { limiter } from '@lore/kit';
import type {
  ConditionCheck,
  ConditionUnderstanding,
  EvaluateQueryReply,
  EvaluateQueryRequest,
} from '@lore/schema/approvals';
import type { SensitivityCategory } from '@lore/schema/knowledge';
import type { PassageFacts, SourceFacts, TopicMeaning } from '@lore/schema/knowledge-events';
import { UNAVAILABLE_VERDICT, UNPARSABLE_VERDICT } from '@lore/textgen';
import { type ConditionRow, sentenceKey } from './conditions.js';
import { asksForCredentials, CREDENTIALS_ASKED, holdFor } from './gate.js';
import { describe, type Interpretation, interpret } from './interpret.js';
import { evaluate, type Facts, judgeSenders, sourcesOutside } from './judge.js';

export interface Check extends ConditionCheck {
  /** Cited sources a matching topic rule does not cover. */
  outside?: string[];
}

/** What the evaluator learns around a query: the cited sources' facts, and the asker's relation. */
export interface EvaluationContext {
  /** The cited sources' sharing and topics; null when the knowledge service could not say. */
  sources: SourceFacts[] | null;
  /**
   * What the passages the draft's excerpts come from were classified as at ingest; null when the
   * knowledge service could not say (held), absent when not asked.
   */
  passages?: PassageFacts[] | null;
  /** Whether the asker is one of the recipient's connections; null when it cannot be checked. */
  connected: () => Promise<boolean | null>;
  /** The conditions' topics scored by meaning against the draft and its passages; null: unknown, absent: not asked. */
  meaning?: TopicMeaning | null;
}

/**
 * Conditions a language model judges at once: a broadcast asks for hundreds of evaluations
 * together, and a judgment that waits past the generator's timeout counts as no verdict, which
 * leaves its query pending.
 */
export const MODEL_JUDGMENTS_IN_FLIGHT = 4;

/** How many of a source's keywords (strongest first) say what it is about. */
export const TOPIC_KEYWORDS = 3;

/**
 * Decides a query, in this order: the gate holds what looks like a secret or personal data and
 * what draws on a source not shared auto (held for the owner); then any matching deny rejects;
 * then a matching allow accepts — unless a deny might apply but cannot be decided, or a cited
 * source falls outside every matching allow's topics (held, with that reason); otherwise the
 * query waits for its recipient. With a language model endpoint each condition is judged by
 * the model (temperature 0, strict JSON, the query and its passages as quoted data); without one
 * the built-in interpreter decides what it can, and what it cannot leaves the query pending.
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

  async evaluate(
    conditions: ConditionRow[],
    req: EvaluateQueryRequest,
    ctx: EvaluationContext = { sources: null, connected: async () => null },
  ): Promise<EvaluateQueryReply> {
    const judge = this.judge;
    // The gate's own checks come first: the model is never asked about what they hold.
    const hold = await holdFor(req, ctx.sources, ctx.passages);
    if (hold) {
      const checks =
        judge === 'interpreter' && conditions.length ? await this.byInterpreter(conditions, req, ctx) : [];
      return { outcome: 'held', decidedBy: hold.decidedBy, condition: null, reason: hold.reason, checks };
    }
    if (!conditions.length)
      return {
        outcome: 'pending',
        decidedBy: 'none',
        condition: null,
        reason: 'No auto-approval conditions: waiting for a manual decision.',
        checks: [],
      };
    const checks =
      judge === 'model'
        ? await this.byModel(conditions, req, ctx)
        : await this.byInterpreter(conditions, req, ctx);
    const decidedBy = `condition:${judge}`;
    const deny = checks.find((c) => c.effect === 'deny' && c.result === 'match');
    if (deny)
      return {
        outcome: 'rejected',
        decidedBy,
        condition: deny.condition,
        reason: `Rejected by "${deny.condition}": ${deny.reason}.`,
        checks: strip(checks),
      };
    const allows = checks.filter((c) => c.effect === 'allow' && c.result === 'match');
    const doubtfulDeny = checks.find((c) => c.effect === 'deny' && c.result === 'unknown');
    if (allows.length && !doubtfulDeny) {
      // Every cited source must be covered by some matching allow: a topic rule covers only
      // the sources about its topic, a rule on senders alone covers them all.
      const cited = [...new Set(req.draft.sources)];
      const uncovered = cited.filter((name) => allows.every((a) => a.outside?.includes(name)));
      const allow = allows.find((a) => !a.outside?.length) ?? allows[0]!;
      if (uncovered.length)
        return {
          outcome: 'held',
          decidedBy: 'gate:scope',
          condition: allow.condition,
          reason: `Held for you: "${allow.condition}" covers the question, but the draft draws on ${uncovered.join(', ')}, which ${uncovered.length === 1 ? 'is' : 'are'} not about what it allows. Accept it with cqAcceptQuery if it may go.`,
          checks: strip(checks),
        };
      // A deny could still reject such a question above; an allow never answers it on its own.
      if (asksForCredentials(req.question))
        return {
          outcome: 'held',
          decidedBy: CREDENTIALS_ASKED.decidedBy,
          condition: allow.condition,
          reason: CREDENTIALS_ASKED.reason,
          checks: strip(checks),
        };
      return {
        outcome: 'accepted',
        decidedBy,
        condition: allow.condition,
        reason: `Accepted by "${allow.condition}": ${allow.reason}.`,
        checks: strip(checks),
      };
    }
    const reason = doubtfulDeny
      ? `Pending: "${doubtfulDeny.condition}" might reject it but ${doubtfulDeny.reason}.`
      : checks.some((c) => c.result === 'unknown')
        ? `Pending: no condition clearly applies (${checks
            .filter((c) => c.result === 'unknown')
            .map((c) => `"${c.condition}": ${c.reason}`)
            .join('; ')}).`
        : 'Pending: none of your conditions matches; waiting for a manual decision.';
    return { outcome: 'pending', decidedBy: 'none', condition: null, reason, checks: strip(checks) };
  }

  private async byInterpreter(
    conditions: ConditionRow[],
    req: EvaluateQueryRequest,
    ctx: EvaluationContext,
  ): Promise<Check[]> {
    const facts = await factsFor(conditions, req, ctx);
    return conditions.map((c) => {
      const r = evaluate(c.interpretation, facts);
      return {
        condition: c.sentence,
        effect: c.interpretation.effect,
        result: r.result,
        reason: r.reason,
        ...(r.outside ? { outside: r.outside } : {}),
      };
    });
  }

  private async byModel(
    conditions: ConditionRow[],
    req: EvaluateQueryRequest,
    ctx: EvaluationContext,
  ): Promise<Check[]> {
    const p = req.asker.profile;
    const asker = p
      ? `@${req.asker.handle} (${p.displayName}). Self-described (unverified) bio: ${p.bio || '—'}. Skills: ${p.skills.join(', ') || '—'}. Interests: ${p.interests.join(', ') || '—'}.`
      : `@${req.asker.handle} (profile unavailable)`;
    const facts = await factsFor(conditions, req, ctx);
    const relation =
      facts.connected == null
        ? ''
        : ` ${facts.connected ? 'Is' : 'Is not'} one of the owner's connections (verified).`;
    const passages = req.draft.sources.map((source, i) => {
      const known = ctx.sources?.find((s) => s.name === source);
      return {
        source,
        topics: known ? [...known.keywords, ...(known.summary ? [known.summary] : [])] : [],
        text: req.draft.excerpts[i] ?? '',
      };
    });
    return Promise.all(
      conditions.map(async (c): Promise<Check> => {
        // The rule's direction comes from its wording; the model only says whether it applies.
        const effect = c.interpretation.effect;
        const v = await this.modelTurn(() =>
          this.textgen.judge({
            condition: c.sentence,
            question: req.question,
            asker: `${asker}${relation}`,
            draft: req.draft.text,
            passages,
          }),
        );
        const unknown = (reason: string): Check => ({
          condition: c.sentence,
          effect,
          result: 'unknown',
          reason,
        });
        if (!v) return unknown('no language model available');
        if (v.reason === UNAVAILABLE_VERDICT.reason || v.reason === UNPARSABLE_VERDICT.reason)
          return unknown(v.reason);
        if (sentenceKey(v.condition) !== sentenceKey(c.sentence))
          return unknown('the model’s verdict names another condition');
        if (v.matches && v.effect !== effect)
          return unknown(`the model answered ${v.effect} for a condition worded as ${effect}`);
        // Backstops the model cannot talk its way past: what the interpreter can establish —
        // a deny's topic present in the query, the senders an allow names, the topics whose
        // sources it covers — stands whatever the verdict says.
        const i = c.interpretation;
        if (effect === 'deny' && !v.matches) {
          const r = evaluate({ ...i, undecidable: [] }, facts);
          if (r.result === 'match' && i.topics.length)
            return {
              condition: c.sentence,
              effect,
              result: 'match',
              reason: `${r.reason} (read without the model)`,
            };
        }
        if (effect === 'allow' && v.matches) {
          const senders = judgeSenders(i, facts);
          if (senders?.result === 'no-match')
            return {
              condition: c.sentence,
              effect,
              result: 'no-match',
              reason: `${senders.reason} (whatever the model said)`,
            };
        }
        const outside =
          v.matches && effect === 'allow' && i.topics.length ? sourcesOutside(i.topics, facts) : [];
        return {
          condition: c.sentence,
          effect,
          result: v.matches ? 'match' : 'no-match',
          reason: `the model judged: ${v.reason}`,
          ...(outside.length ? { outside } : {}),
        };
      }),
    );
  }
}

/** What the log keeps of a check: `outside` is the evaluator's working note. */
const strip = (checks: Check[]) =>
  checks.map(({ condition, effect, result, reason }) => ({ condition, effect, result, reason }));

/** What the interpreter judges a query by; connections are asked only when a condition needs them. */
async function factsFor(
  conditions: ConditionRow[],
  req: EvaluateQueryRequest,
  ctx: EvaluationContext,
): Promise<Facts> {
  const connected = conditions.some((c) => c.interpretation.senders.connections)
    ? await ctx.connected()
    : null;
  return {
    askerId: req.asker.id,
    askerHandle: req.asker.handle,
    profile: req.asker.profile,
    question: req.question,
    sources: [...new Set(req.draft.sources)],
    excerpts: req.draft.excerpts,
    draft: req.draft.text,
    // A source is about what its name, its owner's summary and its three strongest keywords say:
    // a passing mention ("the TypeScript client" in an ops handbook) does not make it so.
    sourceTopics: (ctx.sources ?? []).map((s) => ({
      name: s.name,
      words: [...s.keywords.slice(0, TOPIC_KEYWORDS), s.summary],
      summary: s.summary,
      subjects: s.subjects ?? null,
    })),
    passageSubjects: [...new Set((ctx.passages ?? []).flatMap((p) => p.sensitivity))].flatMap(
      (c) => PASSAGE_SUBJECTS[c],
    ),
    connected,
    // Not known (the knowledge service did not answer): a deny cannot be ruled out by meaning.
    ...(ctx.meaning === null
      ? { meaning: { status: 'unavailable' as const, scores: [] } }
      : ctx.meaning
        ? { meaning: ctx.meaning }
        : {}),
  };
}

/** The words a deny's topic is matched against for each category a passage was classified in. */
const PASSAGE_SUBJECTS: Record<SensitivityCategory, string[]> = {
  credentials: ['credentials', 'password', 'secret'],
  contact: ['contact', 'phone', 'email', 'address'],
  health: ['health', 'medical'],
  money: ['money', 'salary', 'pay'],
  personal: ['personal'],
};
