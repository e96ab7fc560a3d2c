import type { Tool } from '@modelcontextprotocol/server';

const UI = 'ui://';
const LEGACY_KEY = 'ui/resourceUri';

/**
 * A resource URI under an upstream's namespace. App resources keep their `ui://` scheme (hosts
 * only render `ui://` resources): `ui://lore/inbox` under `ext` is `ui://ext/lore/inbox`.
 */
export function namespacedUri(uri: string, namespace: string): string {
  if (uri.startsWith(UI)) return `${UI}${namespace}/${uri.slice(UI.length)}`;
  return uri;
}

/** The URI a tool's app lives at, from `_meta.ui.resourceUri` or the older flat key. */
export function toolResourceUri(tool: Tool): string | undefined {
  const meta = tool._meta as Record<string, unknown> | undefined;
  const ui = meta?.ui as { resourceUri?: unknown } | undefined;
  const uri = ui?.resourceUri ?? meta?.[LEGACY_KEY];
  return typeof uri === 'string' ? uri : undefined;
}

/** The tool as the aggregator lists it: its app's URI rewritten to where the aggregator serves it. */
export function withExposedResource(tool: Tool, exposed: Map<string, string>): Tool {
  const uri = toolResourceUri(tool);
  const to = uri ? exposed.get(uri) : undefined;
  if (!uri || !to || to === uri) return tool;
  const meta = { ...(tool._meta as Record<string, unknown>) };
  if (meta.ui && typeof meta.ui === 'object') meta.ui = { ...(meta.ui as object), resourceUri: to };
  if (typeof meta[LEGACY_KEY] === 'string') meta[LEGACY_KEY] = to;
  return { ...tool, _meta: meta };
}
