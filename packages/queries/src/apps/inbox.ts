import { appHtml, MCP_APP_MIME, type ServiceResource } from '@lore/kit';

/** The inbox MCP App, opened by cqListRequestedQueries in hosts that render apps. */
export const INBOX_APP_URI = 'ui://lore/inbox';

const STYLE = `
:root{color-scheme:light dark;--line:#8884;--warn:#a05a00;--ok:#067647;--bad:#b42318;--un:#c98a0033}
body{font:14px/1.45 system-ui,sans-serif;margin:0;padding:.75rem}
h1{font-size:1rem;margin:0 0 .5rem}.card{border:1px solid var(--line);border-radius:8px;padding:.6rem;margin:0 0 .6rem}
.q{background:var(--un);border-left:3px solid #c98a00;padding:.3rem .5rem;white-space:pre-wrap}
.tag{font-size:.75rem;opacity:.8}.draft{white-space:pre-wrap}.st{font-weight:600}
.pending,.held,.no-knowledge{color:var(--warn)}blockquote{margin:.2rem 0 .4rem 1rem}.accepted{color:var(--ok)}.rejected{color:var(--bad)}
textarea,input{width:100%;box-sizing:border-box;font:inherit}button{font:inherit;margin:.25rem .25rem 0 0}
.muted{opacity:.75}.error{color:#c62828;font-weight:600}`;

const BODY = `<h1>Questions waiting for you</h1><p id="status" class="muted" role="status">Loading…</p><div id="list"></div>`;

// Plain DOM with textContent only: questions and drafts come from other agents and are never parsed as HTML.
const SCRIPT = `
const { App, PostMessageTransport } = globalThis.McpApps;
const app = new App({ name: 'lore-inbox', version: '1.0.0' }, {});
const list = document.getElementById('list');
const status = document.getElementById('status');
const el = (tag, attrs, ...kids) => { const e = document.createElement(tag); Object.assign(e, attrs || {}); for (const k of kids) e.append(k); return e; };
const WAITING = new Set(['pending', 'held', 'no-knowledge']);
function render(map) {
  const queries = Object.values(map || {}).sort((a, b) => String(b.timestamp).localeCompare(String(a.timestamp)));
  const waiting = queries.filter((q) => WAITING.has(q.status));
  show(waiting.length ? waiting.length + ' waiting' : 'Nothing is waiting for you.', false);
  list.replaceChildren(...queries.map(card));
}
function card(q) {
  const c = el('article', { className: 'card', id: 'q-' + q.id });
  c.append(el('div', {}, el('span', { className: 'st ' + q.status, textContent: q.status }), ' from @' + q.from));
  c.append(el('div', { className: 'q' }, el('div', { className: 'tag', textContent: 'from @' + q.from + ' · untrusted' }), q.question));
  if (q.draft) c.append(el('p', { className: 'draft', textContent: q.draft.text }));
  const nothing = q.status === 'no-knowledge';
  if (nothing) c.append(closest(q.closest || []));
  const why = nothing ? '' : q.hold_reason || (q.hold && q.hold.reason) || (q.decision && q.decision.reason);
  if (why) c.append(el('p', { className: 'muted', textContent: why }));
  if (!WAITING.has(q.status)) return c;
  const answer = el('textarea', { rows: 4, value: q.draft ? q.draft.text : '', ariaLabel: 'Answer to send' });
  const reason = el('input', { placeholder: 'Reason (optional)', ariaLabel: nothing ? 'Reason for declining' : 'Reason for rejecting' });
  const act = (label, run) => el('button', { textContent: label, onclick: () => perform(run) });
  // Nothing drafted: there is nothing to approve, only an answer to write or a question to decline.
  const send = act(nothing ? 'Send answer' : 'Save edit and approve', async () => {
    await call('cqInboxEditAnswer', { query_id: q.id, new_answer: answer.value });
    // The edit is kept even when the approval fails: say both, never only the first.
    return call('cqInboxApprove', { id: q.id }).catch((e) => {
      throw new Error('Your edit was saved, but it was not approved: ' + e.message);
    });
  });
  if (nothing) {
    answer.ariaLabel = 'Your answer';
    c.append(el('details', { className: 'write' }, el('summary', { textContent: 'Write an answer' }), answer, send));
  } else c.append(answer, act('Approve', () => call('cqInboxApprove', { id: q.id })), send);
  c.append(
    reason,
    act(nothing ? 'Decline' : 'Reject', () => call('cqInboxReject', reason.value.trim() ? { id: q.id, reason: reason.value.trim() } : { id: q.id })));
  return c;
}
// The passages of the owner's knowledge that came closest to a question nothing matched.
function closest(passages) {
  const box = el('div', { className: 'closest' }, el('p', { className: 'st', textContent: 'Nothing in your knowledge matched.' }));
  if (!passages.length) return box;
  box.append(el('p', { className: 'muted', textContent: 'Closest passages (below the relevance threshold):' }));
  box.append(el('ol', {}, ...passages.map((p) =>
    el('li', {}, el('strong', { textContent: p.source }), ' (' + p.score + ')', el('blockquote', { textContent: p.excerpt })))));
  return box;
}
function show(text, failed) {
  status.textContent = text;
  status.className = failed ? 'error' : 'muted';
}
// Every action says how it ended, after the list is reloaded: its result's text, or why it failed
// (a tool error or a lost host).
async function perform(run) {
  let text, failed = false;
  try { text = await run(); } catch (e) { text = String((e && e.message) || e); failed = true; }
  if (await refresh()) show(text, failed);
}
async function call(name, args) {
  const r = await app.callServerTool({ name, arguments: args });
  const text = (r.content || []).map((b) => b.text || '').join(' ');
  if (r.isError) throw new Error(text || name + ' failed');
  return text;
}
async function refresh() {
  try {
    const r = await app.callServerTool({ name: 'cqListRequestedQueries', arguments: {} });
    if (r.isError) show('Could not reload the inbox: ' + (r.content || []).map((b) => b.text || '').join(' '), true);
    else render(r.structuredContent);
    return !r.isError;
  } catch (e) { show('Could not reload the inbox: ' + ((e && e.message) || e), true); return false; }
}
app.ontoolresult = (r) => render(r.structuredContent);
app.connect(new PostMessageTransport(window.parent, window.parent)).catch((e) => (status.textContent = 'Not connected: ' + e.message));
`;

export function inboxApp(): ServiceResource {
  let html: string | undefined;
  return {
    uri: INBOX_APP_URI,
    name: 'lore-inbox',
    title: 'Lore inbox',
    description:
      'Approve, edit or reject the answers your knowledge drafted for other agents; answer or decline the questions it had nothing on.',
    mimeType: MCP_APP_MIME,
    // Everything is inline: the app needs no network, so it asks the host for no domains at all.
    meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
    read: () => {
      html ??= appHtml({ title: 'Lore inbox', style: STYLE, body: BODY, script: SCRIPT });
      return html;
    },
  };
}
