import type { Hono } from 'hono';
import type { Aggregator } from './aggregator.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the aggregator serves, for people: upstreams with health, tools with owner, annotations and schema. */
export function catalogJson(agg: Aggregator) {
  return {
    upstreams: agg.upstreams.map((u) => ({
      name: u.name,
      state: u.state,
      tools: u.tools.length,
      failures: u.failures,
      lastError: u.lastError ?? null,
      lastCheckedAt: u.lastCheckedAt ? new Date(u.lastCheckedAt).toISOString() : null,
    })),
    tools: agg.listTools().map((t) => ({
      name: t.name,
      service: agg.owner(t.name) ?? null,
      title: t.title ?? null,
      description: t.description ?? null,
      annotations: t.annotations ?? {},
      inputSchema: t.inputSchema,
    })),
  };
}

export function mountCatalog(app: Hono, agg: Aggregator) {
  app.get('/catalog', (c) => c.json(catalogJson(agg)));
  app.get('/', (c) => {
    const cat = catalogJson(agg);
    const upstreams = cat.upstreams
      .map(
        (u) =>
          `<tr><td>${esc(u.name)}</td><td class="${u.state}">${u.state}</td><td>${u.tools}</td><td>${esc(u.lastError ?? '')}</td></tr>`,
      )
      .join('');
    const tools = cat.tools
      .map((t) => {
        const a = t.annotations as Record<string, boolean | undefined>;
        const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']
          .filter((h) => a[h])
          .map((h) => h.replace('Hint', ''))
          .join(', ');
        return `<details><summary><code>${esc(t.name)}</code> — ${esc(t.title ?? '')} <small>(${esc(t.service ?? '?')}${hints ? `; ${hints}` : ''})</small></summary><p>${esc(t.description ?? '')}</p><pre>${esc(JSON.stringify(t.inputSchema, null, 2))}</pre></details>`;
      })
      .join('\n');
    return c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lore — catalog</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{padding:.2rem .8rem;border-bottom:1px solid #ddd;text-align:left}.up{color:#080}.down{color:#b00}.connecting{color:#a60}pre{background:#f6f6f6;padding:.5rem;overflow:auto}summary{cursor:pointer}</style></head>
<body><h1>Lore</h1><p>MCP endpoint: <code>/mcp</code> · <a href="/catalog">catalog JSON</a> · <a href="/metrics">metrics</a></p>
<h2>Upstreams</h2><table><tr><th>service</th><th>health</th><th>tools</th><th>last error</th></tr>${upstreams}</table>
<h2>Tools (${cat.tools.length})</h2>${tools}</body></html>`);
  });
}
