import type { VerifiedAgent } from '@lore/schema/identity';
import type { ContentBlock, LoggingLevel } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { unauthenticated } from './errors.js';
import type { Logger } from './logger.js';
import type { ElicitationPort } from './mcp.js';
import type { SamplingPort } from './textgen-port.js';

export type RateClass = 'read' | 'write' | 'dm' | 'post' | 'none';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a handler gets besides its input. */
export interface ToolContext<P> {
  /** The authenticated caller; throws 401 when the call carried no valid key. */
  readonly agent: VerifiedAgent;
  /** The caller when known, for public tools that work without a key. */
  readonly caller: VerifiedAgent | null;
  readonly ports: P;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** The calling client's model, when it offers sampling. */
  readonly sampling: SamplingPort | undefined;
  /** Report progress to the client (no-op when it did not ask for progress). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** The calling client's user, when the client offers elicitation. */
  readonly elicitation?: ElicitationPort | undefined;
  /** Send the client a log message about this call (filtered by the level it set; no-op without one). */
  notify(level: LoggingLevel, data: unknown): Promise<void>;
}

export interface ToolResult<O> {
  /** What a model reads first: a short human sentence or a listing. */
  text: string;
  /** The structured result; must satisfy the tool's output schema. */
  data: O;
  /** Further content after the text: images, audio, embedded resources, links. */
  content?: ContentBlock[];
}

export interface ToolDefinition<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  P = unknown,
> {
  name: string;
  title: string;
  description: string;
  input: I;
  /**
   * The input schema as tools/list shows it, when the zod schema cannot say it (`$schema`,
   * `$defs` and `$ref`); it must describe what `input` accepts, which still validates every call.
   */
  inputJsonSchema?: Record<string, unknown>;
  output: O;
  annotations: ToolAnnotations;
  rateClass: RateClass;
  /** Callable without an API key (only agent_register). */
  public?: boolean;
  /** The tool's `_meta` in tools/list, e.g. the MCP App it opens (`appToolMeta`). */
  meta?: Record<string, unknown>;
  handler(input: z.output<I>, ctx: ToolContext<P>): Promise<ToolResult<z.input<O>>>;
}

// biome-ignore lint/suspicious/noExplicitAny: a service's tool list mixes input/output types.
export type AnyTool<P = any> = ToolDefinition<any, any, P>;

/** Tool definitions of one service share its ports: `const tool = toolsFor<Ports>()`. */
export const toolsFor =
  <P>() =>
  <I extends z.ZodType, O extends z.ZodType>(def: ToolDefinition<I, O, P>): ToolDefinition<I, O, P> =>
    def;

/** Shorthands for the four annotations, stated in full at each tool. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * A handler's context. Getters on `base` stay getters (the call's logger is built only when a
 * handler logs, the call's signal only when a handler asks for it): the context reads through
 * to `base` instead of copying it.
 */
export function makeContext<P>(base: Omit<ToolContext<P>, 'agent'>): ToolContext<P> {
  return new CallContext(base);
}

class CallContext<P> implements ToolContext<P> {
  // Own properties, not methods: handlers destructure them (`{ progress }`) and call them alone.
  readonly progress: ToolContext<P>['progress'];
  readonly notify: ToolContext<P>['notify'];
  constructor(private readonly base: Omit<ToolContext<P>, 'agent'>) {
    this.progress = base.progress;
    this.notify = base.notify;
  }
  get agent(): VerifiedAgent {
    const caller = this.base.caller;
    if (!caller) throw unauthenticated();
    return caller;
  }
  get caller() {
    return this.base.caller;
  }
  get ports() {
    return this.base.ports;
  }
  get log() {
    return this.base.log;
  }
  get signal() {
    return this.base.signal;
  }
  get requestId() {
    return this.base.requestId;
  }
  get sampling() {
    return this.base.sampling;
  }
  get elicitation() {
    return this.base.elicitation;
  }
}
