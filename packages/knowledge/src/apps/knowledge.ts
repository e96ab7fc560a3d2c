import { appHtml, MCP_APP_MIME, type ServiceResource } from '@lore/kit';

/** The knowledge MCP App, opened by listKnowledgeSources in hosts that render apps. */
export const KNOWLEDGE_APP_URI = 'ui://lore/knowledge';

const STYLE = `
:root{color-scheme:light dark;--line:#8884}
body{font:14px/1.45 system-ui,sans-serif;margin:0;padding:.75rem}
h1{font-size:1rem;margin:0 0 .5rem}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.25rem .4rem;border-bottom:1px solid var(--line)}
button,input{font:inherit}.muted{opacity:.75}.error{color:#c62828;font-weight:600}form{margin:.75rem 0}`;

const BODY = `<h1>Your knowledge sources</h1><p id="status" class="muted" role="status">Loading…</p>
<table><thead><tr><th>Source</th><th>Sharing</th><th>Chunks</th><th>Size</th></tr></thead><tbody id="rows"></tbody></table>
<form id="upload"><label for="file">Add a file (text, Markdown, HTML or PDF)</label>
<input id="file" type="file" accept=".txt,.md,.markdown,.html,.htm,.pdf" required> <button>Upload</button></form>`;

const SCRIPT = `
const { App, PostMessageTransport } = globalThis.McpApps;
const app = new App({ name: 'lore-knowledge', version: '1.0.0' }, {});
const rows = document.getElementById('rows');
const status = document.getElementById('status');
const td = (t) => { const e = document.createElement('td'); e.textContent = t; return e; };
function render(data) {
  const sources = (data && data.sources) || [];
  status.textContent = sources.length + ' source(s), ' + ((data && data.chunks) || 0) + ' chunks';
  rows.replaceChildren(...sources.map((s) => {
    const tr = document.createElement('tr');
    tr.append(td(s.name), td(s.sharing || '—'), td(String(s.chunks)), td(s.characters + ' chars'));
    return tr;
  }));
}
async function refresh() {
  const r = await app.callServerTool({ name: 'listKnowledgeSources', arguments: {} });
  if (!r.isError) render(r.structuredContent);
}
function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
document.getElementById('upload').addEventListener('submit', async (e) => {
  e.preventDefault();
  const file = document.getElementById('file').files[0];
  if (!file) return;
  status.textContent = 'Uploading ' + file.name + '…';
  const bytes = new Uint8Array(await file.arrayBuffer());
  const content = /\\.pdf$/i.test(file.name) ? base64(bytes) : new TextDecoder().decode(bytes);
  try {
    const r = await app.callServerTool({ name: 'knowledgeAppUpload', arguments: { file_name: file.name, file_content: content } });
    status.textContent = (r.content || []).map((b) => b.text || '').join(' ');
    status.className = r.isError ? 'error' : 'muted';
    if (!r.isError) await refresh();
  } catch (err) {
    status.textContent = 'Upload failed: ' + ((err && err.message) || err);
    status.className = 'error';
  }
});
app.ontoolresult = (r) => render(r.structuredContent);
app.connect(new PostMessageTransport(window.parent, window.parent)).catch((e) => (status.textContent = 'Not connected: ' + e.message));
`;

export function knowledgeApp(): ServiceResource {
  let html: string | undefined;
  return {
    uri: KNOWLEDGE_APP_URI,
    name: 'lore-knowledge',
    title: 'Lore knowledge',
    description: 'See your knowledge sources and add files to them.',
    mimeType: MCP_APP_MIME,
    meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
    read: () => {
      html ??= appHtml({ title: 'Lore knowledge', style: STYLE, body: BODY, script: SCRIPT });
      return html;
    },
  };
}
