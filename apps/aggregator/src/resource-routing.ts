import type { CallInfo } from '@lore/kit';
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
import { forwardContext } from './context.js';
import { namespacedUri } from './ui-resources.js';
import type { Upstream } from './upstream.js';

const EMPTY: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

interface Target {
  upstream: Upstream;
  original: string;
}

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

/**
 * Prompts, resources, resource templates, argument completion and resource subscriptions
 * across the live upstreams. A prefixed upstream's resources (and a resource whose URI an
 * earlier upstream holds) are served under its namespace; a template URI goes to the first
 * upstream whose template matches it; a completion to the upstream that owns the prompt or
 * template it names; a subscription to the upstream serving the resource, whose updates come
 * back under the URI the client knows.
 */
export class ResourceRouting {
  private templates: Array<{ upstream: Upstream; template: ResourceTemplateType; match: UriTemplate }> = [];
  private resources: Resource[] = [];
  /** Exposed resource URI → the upstream serving it and its own URI. */
  private resourceRoutes = new Map<string, Target>();
  /** Upstream name → its own resource URI → the exposed one (for updates coming back). */
  private exposedUris = new Map<string, Map<string, string>>();
  private prompts: Prompt[] = [];
  private promptRoutes = new Map<string, Target>();
  private readonly updateListeners = new Set<(uri: string) => void>();

  /**
   * Recompute everything from the live upstreams. Returns each upstream's renamed resources
   * (its URI → the exposed URI), which the tools that point at them follow.
   */
  rebuild(live: Upstream[]): Map<string, Map<string, string>> {
    this.templates = live.flatMap((upstream) =>
      (upstream.resourceTemplates ?? []).map((template) => ({
        upstream,
        template,
        match: new UriTemplate(template.uriTemplate),
      })),
    );
    const routes = new Map<string, Target>();
    const resources: Resource[] = [];
    const renamed = new Map<string, Map<string, string>>();
    for (const u of live) {
      const mine = new Map<string, string>();
      for (const r of u.resources) {
        let exposed = u.opts.prefix ? namespacedUri(r.uri, u.opts.prefix) : r.uri;
        if (routes.has(exposed)) exposed = namespacedUri(r.uri, u.opts.prefix ?? u.name);
        if (routes.has(exposed)) continue;
        routes.set(exposed, { upstream: u, original: r.uri });
        resources.push(exposed === r.uri ? r : { ...r, uri: exposed });
        mine.set(r.uri, exposed);
      }
      renamed.set(u.name, mine);
    }
    this.resourceRoutes = routes;
    this.resources = resources;
    this.exposedUris = renamed;
    const promptRoutes = new Map<string, Target>();
    const prompts: Prompt[] = [];
    for (const u of live)
      for (const p of u.prompts) {
        const exposed = promptRoutes.has(p.name) ? `${u.opts.prefix ?? u.name}_${p.name}` : p.name;
        promptRoutes.set(exposed, { upstream: u, original: p.name });
        prompts.push({ ...p, name: exposed });
      }
    this.promptRoutes = promptRoutes;
    this.prompts = prompts;
    return renamed;
  }

  listResources(): Resource[] {
    return this.resources;
  }

  listPrompts(): Prompt[] {
    return this.prompts;
  }

  listTemplates(): ResourceTemplateType[] {
    const seen = new Set<string>();
    return this.templates
      .filter(({ template }) => !seen.has(template.uriTemplate) && !!seen.add(template.uriTemplate))
      .map(({ template }) => template);
  }

  /** The upstream serving a URI (listed, or through one of its templates) and its own URI. */
  private target(uri: string): Target | undefined {
    const listed = this.resourceRoutes.get(uri);
    if (listed) return listed;
    const upstream = this.templates.find(({ match }) => match.match(uri) !== null)?.upstream;
    return upstream ? { upstream, original: uri } : undefined;
  }

  async readResource(uri: string, call: CallInfo): Promise<ReadResourceResult> {
    const r = this.target(uri);
    if (!r) throw invalid(`Unknown resource: ${uri}`);
    const result = await forwardContext.run({ token: call.token, requestId: call.requestId }, () =>
      r.upstream.readResource(r.original, call),
    );
    if (r.original === uri) return result;
    // The client asked for the exposed URI: the contents answer to that name.
    return {
      ...result,
      contents: result.contents.map((c) => (c.uri === r.original ? { ...c, uri } : c)),
    };
  }

  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    call: CallInfo,
  ): Promise<GetPromptResult> {
    const r = this.promptRoutes.get(name);
    if (!r) throw invalid(`Unknown prompt: ${name}`);
    return forwardContext.run({ token: call.token, requestId: call.requestId }, () =>
      r.upstream.getPrompt(r.original, args, call),
    );
  }

  /** Subscribes (or unsubscribes) at the upstream serving the resource. */
  async subscription(uri: string, on: boolean, call: CallInfo): Promise<void> {
    const r = this.target(uri);
    if (!r) throw invalid(`Unknown resource: ${uri}`);
    await forwardContext.run({ token: call.token, requestId: call.requestId }, () =>
      r.upstream.subscribe(r.original, on, call),
    );
  }

  /** An upstream says one of its resources changed: tell the listeners under the exposed URI. */
  updated(upstream: Upstream, uri: string): void {
    const exposed = this.exposedUris.get(upstream.name)?.get(uri) ?? uri;
    for (const l of this.updateListeners) l(exposed);
  }

  onUpdated(listener: (uri: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  async complete(params: CompleteRequestParams, call: CallInfo): Promise<CompleteResult> {
    const ref = params.ref;
    let upstream: Upstream | undefined;
    let forwarded = params;
    if (ref.type === 'ref/prompt') {
      const r = this.promptRoutes.get(ref.name);
      if (!r) throw invalid(`Unknown prompt: ${ref.name}`);
      upstream = r.upstream;
      forwarded = { ...params, ref: { ...ref, name: r.original } };
    } else {
      upstream = this.templates.find(({ template }) => template.uriTemplate === ref.uri)?.upstream;
      if (!upstream) throw invalid(`Unknown resource template: ${ref.uri}`);
    }
    if (!upstream.completes) return EMPTY;
    return forwardContext.run({ token: call.token, requestId: call.requestId }, () =>
      upstream.complete(forwarded, call),
    );
  }
}
