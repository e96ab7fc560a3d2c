import type {
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
} from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, UriTemplate } from '@modelcontextprotocol/server';
import { MCP_APP_MIME, MCP_APPS_EXTENSION, type ServiceResource } from './apps.js';
import type { McpBackend } from './mcp.js';

/** Suggests values for one argument from what the user has typed so far. */
export type Completer = (value: string, context: Record<string, string>) => string[] | Promise<string[]>;

/** A prompt a service offers (`prompts/list`, `prompts/get`). */
export interface ServicePrompt {
  name: string;
  title?: string;
  description: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  /** The messages, built from the (already checked) arguments. */
  get(args: Record<string, string>): GetPromptResult['messages'] | Promise<GetPromptResult['messages']>;
  /** Completion of argument values, by argument name. */
  complete?: Record<string, Completer>;
}

/** A family of resources behind one URI template (RFC 6570), e.g. `notes://{id}`. */
export interface ServiceResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  /** The contents for one URI, from the template's variables: text, or bytes (sent as a blob). */
  read(variables: Record<string, string>, uri: string): string | Uint8Array | Promise<string | Uint8Array>;
  complete?: Record<string, Completer>;
}

const MAX_COMPLETIONS = 100;

function contents(uri: string, mimeType: string, body: string | Uint8Array, meta?: Record<string, unknown>) {
  const data = typeof body === 'string' ? { text: body } : { blob: Buffer.from(body).toString('base64') };
  return { uri, mimeType, ...data, ...(meta ? { _meta: meta } : {}) };
}

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

/**
 * The MCP methods for what a service offers besides tools: resources (listed, templated,
 * subscribable), prompts and argument completion. Methods for what the service has none of
 * are left out, so the matching capability is not advertised.
 */
export function catalogBackend(opts: {
  resources?: ServiceResource[] | undefined;
  resourceTemplates?: ServiceResourceTemplate[] | undefined;
  prompts?: ServicePrompt[] | undefined;
}): Partial<McpBackend> {
  const resources = opts.resources ?? [];
  const templates = (opts.resourceTemplates ?? []).map((t) => ({ t, match: new UriTemplate(t.uriTemplate) }));
  const prompts = opts.prompts ?? [];
  const out: Partial<McpBackend> = {};
  const byUri = new Map(resources.map((r) => [r.uri, r]));
  const templateOf = (uri: string) => {
    for (const { t, match } of templates) {
      const vars = match.match(uri);
      if (vars) return { t, vars: vars as Record<string, string> };
    }
    return undefined;
  };

  if (resources.length || templates.length) {
    const listed: Resource[] = resources.map((r) => ({
      uri: r.uri,
      name: r.name,
      mimeType: r.mimeType,
      ...(r.title ? { title: r.title } : {}),
      ...(r.description ? { description: r.description } : {}),
      ...(r.meta ? { _meta: r.meta } : {}),
    }));
    const listedTemplates: ResourceTemplateType[] = templates.map(({ t }) => ({
      uriTemplate: t.uriTemplate,
      name: t.name,
      mimeType: t.mimeType,
      ...(t.title ? { title: t.title } : {}),
      ...(t.description ? { description: t.description } : {}),
    }));
    const known = (uri: string) => byUri.has(uri) || templateOf(uri) !== undefined;
    out.listResources = () => listed;
    out.listResourceTemplates = () => listedTemplates;
    out.readResource = async (uri): Promise<ReadResourceResult> => {
      const r = byUri.get(uri);
      if (r) return { contents: [contents(uri, r.mimeType, await r.read(), r.meta)] };
      const hit = templateOf(uri);
      if (!hit) throw invalid(`Unknown resource: ${uri}`);
      return { contents: [contents(uri, hit.t.mimeType, await hit.t.read(hit.vars, uri))] };
    };
    // A subscription names a resource the service serves; the service tells subscribers of
    // changes through resources/list_changed and by serving the new contents on the next read.
    out.subscribeResource = async (uri) => {
      if (!known(uri)) throw invalid(`Unknown resource: ${uri}`);
    };
    out.unsubscribeResource = async (uri) => {
      if (!known(uri)) throw invalid(`Unknown resource: ${uri}`);
    };
    if (resources.some((r) => r.mimeType === MCP_APP_MIME))
      out.extensions = () => ({ [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } });
  }

  if (prompts.length) {
    const byName = new Map(prompts.map((p) => [p.name, p]));
    const listed: Prompt[] = prompts.map((p) => ({
      name: p.name,
      description: p.description,
      ...(p.title ? { title: p.title } : {}),
      ...(p.arguments ? { arguments: p.arguments } : {}),
    }));
    out.listPrompts = () => listed;
    out.getPrompt = async (name, args) => {
      const p = byName.get(name);
      if (!p) throw invalid(`Unknown prompt: ${name}`);
      const given = args ?? {};
      const missing = (p.arguments ?? []).filter((a) => a.required && !given[a.name]).map((a) => a.name);
      if (missing.length) throw invalid(`Prompt ${name} needs ${missing.join(', ')}`);
      return { description: p.description, messages: await p.get(given) };
    };
  }

  const completing = prompts.some((p) => p.complete) || templates.some(({ t }) => t.complete);
  if (completing)
    out.complete = async (params: CompleteRequestParams): Promise<CompleteResult> => {
      const ref = params.ref;
      const completers =
        ref.type === 'ref/prompt'
          ? prompts.find((p) => p.name === ref.name)?.complete
          : templates.find(({ t }) => t.uriTemplate === ref.uri)?.t.complete;
      const complete = completers?.[params.argument.name];
      const values = complete ? await complete(params.argument.value, params.context?.arguments ?? {}) : [];
      return {
        completion: {
          values: values.slice(0, MAX_COMPLETIONS),
          total: values.length,
          hasMore: values.length > MAX_COMPLETIONS,
        },
      };
    };
  return out;
}
