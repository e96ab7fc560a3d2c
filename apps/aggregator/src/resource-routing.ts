import type { CallInfo } from '@lore/kit';
import type {
  CompleteRequestParams,
  CompleteResult,
  ResourceTemplateType,
} from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, UriTemplate } from '@modelcontextprotocol/server';
import { forwardContext } from './context.js';
import type { Upstream } from './upstream.js';

const EMPTY: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/**
 * Resource templates, argument completion and resource subscriptions across the live
 * upstreams: a template URI goes to the first upstream whose template matches it, a completion
 * to the upstream that owns the prompt or template it names.
 */
export class ResourceRouting {
  private templates: Array<{ upstream: Upstream; template: ResourceTemplateType; match: UriTemplate }> = [];

  rebuild(live: Upstream[]): void {
    this.templates = live.flatMap((upstream) =>
      (upstream.resourceTemplates ?? []).map((template) => ({
        upstream,
        template,
        match: new UriTemplate(template.uriTemplate),
      })),
    );
  }

  list(): ResourceTemplateType[] {
    const seen = new Set<string>();
    return this.templates
      .filter(({ template }) => !seen.has(template.uriTemplate) && !!seen.add(template.uriTemplate))
      .map(({ template }) => template);
  }

  /** The upstream serving a URI through one of its templates. */
  byUri(uri: string): Upstream | undefined {
    return this.templates.find(({ match }) => match.match(uri) !== null)?.upstream;
  }

  async complete(
    params: CompleteRequestParams,
    call: CallInfo,
    prompt: (name: string) => { upstream: Upstream; original: string } | undefined,
  ): Promise<CompleteResult> {
    const ref = params.ref;
    let upstream: Upstream | undefined;
    let forwarded = params;
    if (ref.type === 'ref/prompt') {
      const r = prompt(ref.name);
      if (!r) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      upstream = r.upstream;
      forwarded = { ...params, ref: { ...ref, name: r.original } };
    } else {
      upstream = this.templates.find(({ template }) => template.uriTemplate === ref.uri)?.upstream;
      if (!upstream)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    }
    if (!upstream.completes) return EMPTY;
    return forwardContext.run({ token: call.token, requestId: call.requestId }, () =>
      upstream.complete(forwarded, call),
    );
  }
}
