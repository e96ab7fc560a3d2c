/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ConsoleToolError } from '../call.js';
import { back, type ConsoleDeps, type ConsoleEnv, formOf, isHtmx, tool } from '../context.js';
import { Flash, Page } from '../layout.js';
import { watchInbox } from '../live.js';
import {
  AnswerPreview,
  type AskerInfo,
  InboxList,
  QueryCard,
  type ReceivedQuery,
  WAITING,
} from './inbox-view.js';

type Ctx = Context<ConsoleEnv>;

async function allQueries(deps: ConsoleDeps, c: Ctx): Promise<ReceivedQuery[]> {
  const r = await tool<Record<string, ReceivedQuery>>(deps, c, 'cqListRequestedQueries');
  return Object.values(r.data).sort((a, b) => b.timestamp.localeCompare(a.timestamp));
}

/** The askers' public profiles, and whether each is a connection of the signed-in agent. */
async function askersOf(
  deps: ConsoleDeps,
  c: Ctx,
  queries: ReceivedQuery[],
): Promise<Map<string, AskerInfo>> {
  const me = c.get('session').agent.handle;
  const out = new Map<string, AskerInfo>();
  const connections = await tool<{ connections: string[] }>(deps, c, 'agent_profile', { username: me })
    .then((r) => new Set(r.data.connections))
    .catch(() => new Set<string>());
  await Promise.all(
    [...new Set(queries.map((q) => q.from))].map(async (h) => {
      try {
        const p = await tool<{
          agent: { displayName: string; bio: string; skills: Array<{ name: string } | string> };
        }>(deps, c, 'agent_profile', { username: h });
        out.set(h, {
          displayName: p.data.agent.displayName,
          bio: p.data.agent.bio,
          skills: p.data.agent.skills.map((s) => (typeof s === 'string' ? s : s.name)),
          connected: connections.has(h),
        });
      } catch {
        // An asker on a node this one cannot reach has no profile here: the card says so.
      }
    }),
  );
  return out;
}

/** Waiting questions shown per page: an inbox many askers fill stays quick to read and act on. */
export const INBOX_PAGE_SIZE = 25;

/** The page asked for (`?page=2`), 1 when absent or not a positive number. */
const pageOf = (c: Ctx) => Math.max(1, Math.floor(Number(c.req.query('page') ?? '1')) || 1);

async function waitingList(deps: ConsoleDeps, c: Ctx) {
  const waiting = (await allQueries(deps, c)).filter((q) => WAITING.has(q.status));
  const pages = Math.max(1, Math.ceil(waiting.length / INBOX_PAGE_SIZE));
  const page = Math.min(pageOf(c), pages);
  const queries = waiting.slice((page - 1) * INBOX_PAGE_SIZE, page * INBOX_PAGE_SIZE);
  const askers = await askersOf(deps, c, queries);
  return (
    <>
      <InboxList queries={queries} askers={askers} csrf={c.get('session').csrf} />
      {pages > 1 ? (
        <nav class="pager" aria-label="Inbox pages">
          <span class="small muted">
            {`${(page - 1) * INBOX_PAGE_SIZE + 1}–${(page - 1) * INBOX_PAGE_SIZE + queries.length} of ${waiting.length} waiting`}
          </span>{' '}
          {page > 1 ? (
            <a href={`/console/inbox?page=${page - 1}`} rel="prev">
              Newer
            </a>
          ) : null}{' '}
          {page < pages ? (
            <a href={`/console/inbox?page=${page + 1}`} rel="next">
              Older
            </a>
          ) : null}
        </nav>
      ) : null}
    </>
  );
}

async function one(deps: ConsoleDeps, c: Ctx, id: string): Promise<ReceivedQuery | undefined> {
  return (await allQueries(deps, c)).find((q) => q.id === id);
}

/** After an action: the card in its new state for htmx, or back to the inbox for a plain form. */
async function settled(deps: ConsoleDeps, c: Ctx, id: string, notice: string) {
  if (!isHtmx(c)) return back(c, '/console/inbox', { notice });
  const q = await one(deps, c, id);
  c.header('HX-Trigger', JSON.stringify({ 'lore:announce': notice }));
  return c.html(q ? <QueryCard q={q} csrf={c.get('session').csrf} /> : <p>{notice}</p>);
}

function failed(c: Ctx, err: unknown) {
  const message = err instanceof ConsoleToolError ? err.message : 'Something went wrong; try again.';
  if (!isHtmx(c)) return back(c, '/console/inbox', { error: message });
  c.header('HX-Reswap', 'none');
  c.header('HX-Trigger', JSON.stringify({ 'lore:error': message }));
  return c.body(null, err instanceof ConsoleToolError && err.code < 500 ? 422 : 500);
}

export function registerInbox(app: Hono<ConsoleEnv>, deps: ConsoleDeps) {
  app.get('/inbox', async (c) => {
    const s = c.get('session');
    return c.html(
      <Page title="Inbox" agent={s.agent} csrf={s.csrf} active="inbox">
        <p class="lede">
          Questions other agents asked you, with the answer your knowledge drafted, or the passages that came
          closest when nothing matched. Nothing leaves until you approve it. <kbd>j</kbd>/<kbd>k</kbd> move,{' '}
          <kbd>a</kbd> approves, <kbd>e</kbd> edits, <kbd>r</kbd> rejects.
        </p>
        <Flash error={c.req.query('error')} notice={c.req.query('notice')} />
        <div
          id="inbox"
          data-live="/console/inbox/events"
          data-refresh={`/console/inbox/list?page=${pageOf(c)}`}
        >
          {await waitingList(deps, c)}
        </div>
        <p class="small muted" id="live-status" aria-live="polite">
          Live updates connect when this page is open.
        </p>
      </Page>,
    );
  });

  app.get('/inbox/list', async (c) => c.html(await waitingList(deps, c)));

  app.get('/inbox/events', (c) => {
    const s = c.get('session');
    return streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      await stream.writeSSE({ event: 'ready', data: 'connected' });
      // A stream outlives nothing: signed out (on any replica), expired or idle, it ends. Checking
      // is not a use of the session, so an open tab alone does not keep it alive.
      const ended = async () => !(await deps.sessions.get(s.id, false).catch(() => true));
      const keepAlive = setInterval(async () => {
        if (await ended()) abort.abort();
        else void stream.write(': keep-alive\n\n').catch(() => abort.abort());
      }, 15_000);
      await watchInbox({
        hints: deps.hints,
        signal: abort.signal,
        agentId: s.agent.id,
        read: async () => {
          if (await ended()) {
            abort.abort();
            throw new Error('the session ended');
          }
          return (await allQueries(deps, c))
            .filter((q) => WAITING.has(q.status))
            .map((q) => `${q.id}:${q.status}:${q.draft?.text.length ?? 0}`)
            .join(',');
        },
        changed: async (fp) => {
          const count = fp ? fp.split(',').length : 0;
          await stream.writeSSE({
            event: 'inbox',
            data: JSON.stringify({ waiting: count, agent: s.agent.handle }),
          });
        },
      });
      clearInterval(keepAlive);
    });
  });

  app.post('/inbox/:id/approve', async (c) => {
    const id = c.req.param('id');
    try {
      await tool(deps, c, 'cqAcceptQuery', { id });
      return settled(deps, c, id, 'Approved: the answer is on its way.');
    } catch (err) {
      return failed(c, err);
    }
  });

  app.post('/inbox/:id/preview', async (c) => {
    const id = c.req.param('id');
    const text = (await formOf(c)).answer?.trim() ?? '';
    const q = await one(deps, c, id);
    if (!q) return c.html(<p class="error">This query is gone.</p>, 404);
    if (!text) return c.html(<p class="error">Write an answer first.</p>);
    return c.html(<AnswerPreview text={text} q={q} from={c.get('session').agent.handle} />);
  });

  app.post('/inbox/:id/edit', async (c) => {
    const id = c.req.param('id');
    const answer = (await formOf(c)).answer ?? '';
    try {
      const r = await tool<{ status: string; sent_to_asker: boolean }>(deps, c, 'cqUpdateEditAnswer', {
        query_id: id,
        new_answer: answer,
      });
      // An edited draft of a waiting query still needs the decision; an accepted one was re-sent by the edit.
      if (!r.data.sent_to_asker && WAITING.has(r.data.status)) await tool(deps, c, 'cqAcceptQuery', { id });
      return settled(deps, c, id, 'Edited and approved: your answer is on its way.');
    } catch (err) {
      return failed(c, err);
    }
  });

  app.post('/inbox/:id/reject', async (c) => {
    const id = c.req.param('id');
    const reason = (await formOf(c)).reason?.trim();
    try {
      await tool(deps, c, 'cqRejectQuery', { id, ...(reason ? { reason } : {}) });
      return settled(deps, c, id, 'Rejected: nothing was sent.');
    } catch (err) {
      return failed(c, err);
    }
  });
}
