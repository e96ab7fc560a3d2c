import type {
  GenerateRequest,
  GenerateResult,
  JudgeRequest,
  JudgeVerdict,
  SamplingPort,
  TextGenerator,
  TextGeneratorConfig,
} from '@lore/kit';
import type OpenAI from 'openai';
import { z } from 'zod';
import { questionShape } from './aspects.js';
import { extractiveAnswer, partialNote, uncoveredParts } from './extractive.js';
import { citesSomething, groundDraft, namesAGap } from './grounding.js';
import {
  generationSystemPrompt,
  generationUserMessage,
  JUDGE_SYSTEM_PROMPT,
  judgeUserMessage,
  promptPassages,
  resolveCitations,
} from './prompt.js';

export const DEFAULT_MODEL = 'gpt-4o-mini';
const DEFAULT_ENDPOINT_TIMEOUT_MS = 30_000;
const DEFAULT_SAMPLING_TIMEOUT_MS = 60_000;
const JUDGE_MAX_TOKENS = 300;

const FALLBACK_NOTE =
  '(Extractive answer: the language model was unavailable, so these are the sources’ own words.)';
export const UNPARSABLE_VERDICT: JudgeVerdict = {
  matches: false,
  effect: 'none',
  reason: 'model verdict unparsable',
  condition: '',
};
export const UNAVAILABLE_VERDICT: JudgeVerdict = {
  matches: false,
  effect: 'none',
  reason: 'model verdict unavailable',
  condition: '',
};

const verdictSchema = z.strictObject({
  decision: z.enum(['allow', 'deny', 'none']),
  condition: z.string(),
  reason: z.string().min(1),
});

/**
 * Parses a model's verdict: one JSON object (code fences and surrounding prose tolerated) with
 * exactly `decision`, `condition` and `reason`; anything else is unparsable.
 */
export function parseVerdict(raw: string): JudgeVerdict {
  const start = raw.indexOf('{');
  const end = raw.lastIndexOf('}');
  if (start === -1 || end < start) return { ...UNPARSABLE_VERDICT };
  let json: unknown;
  try {
    json = JSON.parse(raw.slice(start, end + 1));
  } catch {
    return { ...UNPARSABLE_VERDICT };
  }
  const parsed = verdictSchema.safeParse(json);
  if (!parsed.success) return { ...UNPARSABLE_VERDICT };
  const { decision, condition, reason } = parsed.data;
  return {
    matches: decision !== 'none',
    effect: decision,
    reason: reason.trim().slice(0, 500),
    condition: condition.trim().slice(0, 500),
  };
}

function describe(err: unknown): string {
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && err instanceof Error) return `HTTP ${status}: ${err.message}`;
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

function withTimeout<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal?.reason ?? new Error('aborted'));
    if (signal?.aborted) return onAbort();
    const timer = setTimeout(() => reject(new Error(`no reply within ${ms} ms`)), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function sentenceBudget(req: GenerateRequest): number {
  return Math.max(1, Math.floor(req.maxSentences ?? (req.detailed ? 6 : 3)));
}

function maxTokensFor(req: GenerateRequest): number {
  return Math.min(2000, 120 + sentenceBudget(req) * 80 + (req.task === 'summarize' ? 200 : 0));
}

/**
 * Drafts answers and summaries from passages, and judges sharing conditions. Per call:
 * the OpenAI-compatible endpoint when `baseUrl` is configured; else MCP sampling when a
 * port is passed; else (and whenever the model fails or returns nothing) a deterministic
 * extractive answer, marked with `fallback`. Passages always reach a model as numbered,
 * escaped `<passage>` blocks of quoted data, never as instructions.
 */
export function createTextGenerator(config: TextGeneratorConfig): TextGenerator {
  const baseUrl = config.baseUrl?.trim().replace(/\/+$/, '') || undefined;
  const model = config.model?.trim() || DEFAULT_MODEL;
  // The official client is loaded when first needed: services without an endpoint never load it.
  let loaded: Promise<OpenAI> | undefined;
  const endpoint = (): Promise<OpenAI> =>
    (loaded ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          baseURL: baseUrl,
          // Never fall back to OPENAI_API_KEY from the environment: it must not leak to a custom endpoint.
          apiKey: config.apiKey || 'unused',
          timeout: config.timeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS,
          maxRetries: config.maxRetries ?? 1,
        }),
    ));
  const client = baseUrl ? true : null;
  const samplingTimeout = config.timeoutMs ?? DEFAULT_SAMPLING_TIMEOUT_MS;

  function fallback(req: GenerateRequest, from: 'endpoint' | 'sampling', err: unknown): GenerateResult {
    const result = extractiveAnswer(req);
    return {
      ...result,
      text: result.citations.length > 0 ? `${result.text}\n\n${FALLBACK_NOTE}` : result.text,
      fallback: { from, reason: describe(err).slice(0, 300) },
    };
  }

  async function generate(
    req: GenerateRequest,
    opts: { sampling?: SamplingPort; signal?: AbortSignal } = {},
  ): Promise<GenerateResult> {
    const passages = promptPassages(req.passages);
    // Nothing to ground an answer on: never let a model answer from its own knowledge.
    if (passages.length === 0 || (!client && !opts.sampling)) return extractiveAnswer(req);

    const systemPrompt = generationSystemPrompt(req, sentenceBudget(req));
    const uncovered =
      req.task === 'answer'
        ? uncoveredParts(
            req.question,
            passages.map((p) => p.text),
            passages.map((p) => p.source),
          )
        : [];
    const parts = req.task === 'answer' ? questionShape(req.question).aspects.map((a) => a.text) : [];
    const user = generationUserMessage(req, passages, uncovered, parts);
    const from = client ? 'endpoint' : 'sampling';
    try {
      let raw: string;
      let usedModel: string | undefined;
      if (client) {
        const completion = await (await endpoint()).chat.completions.create(
          {
            model,
            temperature: 0,
            max_tokens: maxTokensFor(req),
            messages: [
              { role: 'system', content: systemPrompt },
              { role: 'user', content: user },
            ],
          },
          { signal: opts.signal },
        );
        raw = completion.choices[0]?.message?.content ?? '';
        usedModel = completion.model || model;
      } else {
        raw = await withTimeout(
          opts.sampling!.createMessage({
            systemPrompt,
            messages: [{ role: 'user', content: { type: 'text', text: user } }],
            maxTokens: maxTokensFor(req),
            temperature: 0,
          }),
          samplingTimeout,
          opts.signal,
        );
      }
      if (typeof raw !== 'string' || raw.trim() === '') throw new Error('the model returned no text');
      // Only what the draft grounds in a passage is kept; a draft citing nothing is not used.
      const grounded = groundDraft(raw, passages.length);
      if (!citesSomething(grounded.text, passages.length))
        throw new Error('the model’s draft cited no passage');
      const resolved = resolveCitations(grounded.text, passages, req.question);
      let text = resolved.text;
      const n = grounded.unsupported.length;
      if (n)
        text += `\n\n(${n} sentence${n > 1 ? 's' : ''} of the draft cited no passage and ${n > 1 ? 'were' : 'was'} left out.)`;
      if (uncovered.length && !namesAGap(text)) text += `\n\n${partialNote(uncovered, req.question)}`;
      const result: GenerateResult = {
        text,
        citations: resolved.citations,
        strategy: from,
        ...(uncovered.length ? { uncovered } : {}),
        ...(n ? { unsupported: grounded.unsupported } : {}),
      };
      if (usedModel) result.model = usedModel;
      return result;
    } catch (err) {
      // The caller gave up: do not answer at all.
      if (opts.signal?.aborted) throw err;
      // The 2026-07-28 path asks the client's model by ending this round: let that through.
      if ((err as Error)?.name === 'InputRequiredSignal') throw err;
      return fallback(req, from, err);
    }
  }

  async function judge(
    req: JudgeRequest,
    opts: { sampling?: SamplingPort } = {},
  ): Promise<JudgeVerdict | null> {
    if (!client && !opts.sampling) return null;
    const user = judgeUserMessage(req);
    try {
      if (client) {
        const body = {
          model,
          temperature: 0,
          max_tokens: JUDGE_MAX_TOKENS,
          messages: [
            { role: 'system' as const, content: JUDGE_SYSTEM_PROMPT },
            { role: 'user' as const, content: user },
          ],
        };
        let completion: OpenAI.Chat.Completions.ChatCompletion;
        try {
          completion = await (await endpoint()).chat.completions.create({
            ...body,
            response_format: { type: 'json_object' },
          });
        } catch (err) {
          // Some OpenAI-compatible servers reject response_format; the prompt asks for JSON anyway.
          if ((err as { status?: number })?.status !== 400) throw err;
          completion = await (await endpoint()).chat.completions.create(body);
        }
        return parseVerdict(completion.choices[0]?.message?.content ?? '');
      }
      const raw = await withTimeout(
        opts.sampling!.createMessage({
          systemPrompt: JUDGE_SYSTEM_PROMPT,
          messages: [{ role: 'user', content: { type: 'text', text: user } }],
          maxTokens: JUDGE_MAX_TOKENS,
          temperature: 0,
        }),
        samplingTimeout,
      );
      return parseVerdict(typeof raw === 'string' ? raw : '');
    } catch (err) {
      if ((err as Error)?.name === 'InputRequiredSignal') throw err;
      return { ...UNAVAILABLE_VERDICT };
    }
  }

  return { generate, judge, hasEndpoint: client !== null };
}
