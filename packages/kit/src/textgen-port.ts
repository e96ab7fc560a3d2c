/** How a result was produced: an OpenAI-compatible endpoint, MCP sampling, or extraction. */
export type GenerationStrategy = 'endpoint' | 'sampling' | 'extractive';

/** A piece of retrieved knowledge, or (for `summarize`) a peer's answer. */
export interface Passage {
  id: string;
  /** Where it comes from: a document name, or for `summarize` the peer's handle. */
  source: string;
  text: string;
  score?: number;
}

/** What a `[n]` marker in the text refers to: `citations[n - 1]`. */
export interface Citation {
  id: string;
  source: string;
  excerpt: string;
}

export interface GenerateRequest {
  task: 'answer' | 'summarize';
  question: string;
  /** For `summarize`, the peers' answers, with `source` = the peer's handle. */
  passages: Passage[];
  detailed?: boolean;
  maxSentences?: number;
}

export interface GenerateResult {
  text: string;
  /** `[n]` in `text` refers to `citations[n - 1]`. */
  citations: Citation[];
  strategy: GenerationStrategy;
  model?: string;
  /**
   * Set when the endpoint or sampling failed and the result was extracted instead
   * (`strategy` is then `'extractive'`); `text` also ends with a short note saying so.
   */
  fallback?: { from: 'endpoint' | 'sampling'; reason: string };
  /**
   * Parts of the question (or names it mentions) that no passage speaks to; the text then says
   * plainly that the knowledge only partly answers. Absent when every part is covered.
   */
  uncovered?: string[];
  /** Sentences of a model's draft that cited no passage and were removed. */
  unsupported?: string[];
}

export interface SamplingPort {
  /** asks the calling MCP client's model; resolves to its text */
  createMessage(params: {
    systemPrompt: string;
    messages: Array<{ role: 'user' | 'assistant'; content: { type: 'text'; text: string } }>;
    maxTokens: number;
    temperature?: number;
  }): Promise<string>;
}

export interface JudgeRequest {
  /** The owner's condition, in plain language. */
  condition: string;
  question: string;
  /** Who is asking (a handle). */
  asker: string;
  /** The answer about to be shared, when the condition is about content. */
  draft?: string;
  /** The passages the draft cites, with what their source is about. */
  passages?: Array<{ source: string; topics: string[]; text: string }>;
}

/**
 * The model's strict JSON verdict `{decision, condition, reason}`: `decision` is what the
 * condition says to do with this request (`none` when it does not apply), `condition` the
 * condition it judged, repeated, so a verdict about another condition can be told apart.
 */
export interface JudgeVerdict {
  matches: boolean;
  effect: 'allow' | 'deny' | 'none';
  reason: string;
  /** The condition the model says it judged ("" for verdicts the generator made up itself). */
  condition: string;
}

export interface TextGenerator {
  generate(
    req: GenerateRequest,
    opts?: { sampling?: SamplingPort; signal?: AbortSignal },
  ): Promise<GenerateResult>;
  /** null when no model is available (no endpoint configured and no sampling port) */
  judge(req: JudgeRequest, opts?: { sampling?: SamplingPort }): Promise<JudgeVerdict | null>;
  readonly hasEndpoint: boolean;
}

export interface TextGeneratorConfig {
  /** An OpenAI-compatible API base, usually ending in `/v1` (e.g. `http://127.0.0.1:11434/v1`). */
  baseUrl?: string;
  /** Model name sent to the endpoint. Default `gpt-4o-mini`. */
  model?: string;
  /** Bearer token for the endpoint; a placeholder is sent when unset (local servers ignore it). */
  apiKey?: string;
  /** Per-request timeout for the endpoint (default 30 s) and for sampling (default 60 s). */
  timeoutMs?: number;
  /** Retries of a failed endpoint request before falling back. Default 1. */
  maxRetries?: number;
}
