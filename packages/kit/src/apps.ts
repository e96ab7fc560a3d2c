import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';

/** The MCP Apps extension (`io.modelcontextprotocol/ui`) and its resource MIME profile. */
export const MCP_APPS_EXTENSION = EXTENSION_ID;
export const MCP_APP_MIME = RESOURCE_MIME_TYPE;

/** A resource a service serves (today: the HTML of an MCP App). */
export interface ServiceResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  meta?: Record<string, unknown>;
  /** The contents: text, or bytes (sent as a base64 blob). */
  read(): string | Uint8Array | Promise<string | Uint8Array>;
}

/**
 * `_meta` for a tool tied to an app: the model-facing tool that opens it (visibility model and
 * app), or an app-only action the model never sees.
 */
export function appToolMeta(resourceUri: string, visibility: Array<'model' | 'app'> = ['model', 'app']) {
  return { ui: { resourceUri, visibility } };
}

let bundle: string | undefined;

/**
 * The ext-apps `App` runtime as a classic script defining `globalThis.McpApps`: the package
 * ships one self-contained ES module, whose final export list becomes that object, so an app
 * needs no import map, no CDN and no network at all inside the host's sandbox.
 */
export function appRuntime(): string {
  if (bundle) return bundle;
  const file = createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps');
  const source = readFileSync(file, 'utf8');
  const m = /export\s*\{([^}]*)\}\s*;?\s*(\/\/[^\n]*\s*)?$/.exec(source);
  if (!m) throw new Error('unexpected shape of the ext-apps app bundle (no final export list)');
  const entries = m[1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [local, exported] = s.split(/\s+as\s+/);
      return `${JSON.stringify(exported ?? local)}:${local}`;
    });
  // The bundle's top level is wrapped so its names stay private; only the export list escapes.
  bundle = `(()=>{${source.slice(0, m.index)}\nglobalThis.McpApps={${entries.join(',')}};})();`;
  return bundle;
}

/** A complete, offline MCP App page: its markup, its style and its script after the App runtime. */
export function appHtml(opts: { title: string; style: string; body: string; script: string }): string {
  const safe = (s: string) => s.replace(/<\/(script|style)/gi, '<\\/$1');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${opts.title.replace(/[<&]/g, '')}</title>
<style>${safe(opts.style)}</style></head>
<body>${opts.body}
<script>${safe(appRuntime())}</script>
<script>${safe(opts.script)}</script>
</body></html>`;
}
