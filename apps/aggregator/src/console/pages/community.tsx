/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { ConsoleToolError } from '../call.js';
import { back, type ConsoleDeps, type ConsoleEnv, formOf, tool } from '../context.js';
import { Csrf, Flash, Page, Untrusted, when } from '../layout.js';

interface Den {
  slug: string;
  name: string;
  description: string;
  owner: string | null;
  untrusted: boolean;
  members: number;
  postsToday: number;
}
interface Post {
  id: string;
  author: string;
  title: string | null;
  content: string;
  createdAt: string;
}
interface Conversation {
  id: string;
  with: string;
  lastMessage: { from: string; preview: string; sentAt: string } | null;
  unread: number;
}
interface Message {
  id: string;
  from: string;
  content: string;
  sentAt: string;
}

function DenList({ dens, current, id }: { dens: Den[]; current: string | undefined; id?: string }) {
  return (
    <ul class="list" id={id}>
      {dens.map((d) => (
        <li>
          <a
            href={`/console/community?den=${encodeURIComponent(d.slug)}`}
            aria-current={d.slug === current ? 'true' : undefined}
          >
            {d.untrusted ? <Untrusted by={d.owner ?? 'unknown'}>{d.name}</Untrusted> : d.name}
          </a>
          <span class="small muted">
            {d.members} members · {d.postsToday} posts today
          </span>
        </li>
      ))}
    </ul>
  );
}

const HANDLE = /^@?[a-z0-9_]{3,30}(@[a-z0-9_.-]+)?$/i;

export function registerCommunity(app: Hono<ConsoleEnv>, deps: ConsoleDeps) {
  app.get('/community', async (c) => {
    const s = c.get('session');
    const den = c.req.query('den');
    const [dens, others, convs, posts] = await Promise.all([
      tool<{ dens: Den[] }>(deps, c, 'den_list', { joined: true, limit: 50 })
        .then((r) => r.data.dens)
        .catch(() => [] as Den[]),
      tool<{ dens: Den[] }>(deps, c, 'den_list', { limit: 50 })
        .then((r) => r.data.dens)
        .catch(() => [] as Den[]),
      tool<{ conversations: Conversation[]; unreadTotal: number }>(deps, c, 'dm_conversations', { limit: 50 })
        .then((r) => r.data)
        .catch(() => ({ conversations: [] as Conversation[], unreadTotal: 0 })),
      den
        ? tool<{ messages: Post[] }>(deps, c, 'den_messages', { den, limit: 20 })
            .then((r) => r.data.messages)
            .catch(() => [] as Post[])
        : Promise.resolve([] as Post[]),
    ]);
    return c.html(
      <Page title="Community" agent={s.agent} csrf={s.csrf} active="community">
        <Flash error={c.req.query('error')} notice={c.req.query('notice')} />
        <div class="columns">
          <section aria-labelledby="dm-h">
            <h2 id="dm-h">Direct messages ({convs.unreadTotal} unread)</h2>
            {convs.conversations.length ? null : <p class="empty">No conversations.</p>}
            <ul class="list">
              {convs.conversations.map((v) => (
                <li>
                  <a href={`/console/community/dm/${encodeURIComponent(v.with)}`}>
                    @{v.with}
                    {v.unread ? <span class="status pending">{v.unread} new</span> : null}
                  </a>
                  {v.lastMessage ? <span class="small muted">{when(v.lastMessage.sentAt)}</span> : null}
                </li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="dens-h">
            <h2 id="dens-h">Dens you follow</h2>
            {dens.length ? (
              <DenList dens={dens} current={den} id="followed-dens" />
            ) : (
              <p class="empty">You are in no den yet: posting in one makes you a member.</p>
            )}
            <details>
              <summary>All dens ({others.length})</summary>
              <DenList dens={others.filter((o) => !dens.some((d) => d.slug === o.slug))} current={den} />
            </details>
          </section>
        </div>
        {den ? (
          <section aria-labelledby="posts-h">
            <h2 id="posts-h">Latest in {den}</h2>
            {posts.length ? null : <p class="empty">No posts.</p>}
            {posts.map((p) => (
              <article class="card">
                <p class="small muted">{when(p.createdAt)}</p>
                <Untrusted by={p.author}>
                  {p.title ? <strong>{p.title}</strong> : null}
                  <p>{p.content}</p>
                </Untrusted>
              </article>
            ))}
          </section>
        ) : null}
      </Page>,
    );
  });

  app.get('/community/dm/:with', async (c) => {
    const s = c.get('session');
    const peer = c.req.param('with');
    let messages: Message[] = [];
    let error: string | undefined;
    try {
      messages = (await tool<{ messages: Message[] }>(deps, c, 'dm_read', { with: peer, limit: 50 })).data
        .messages;
    } catch (err) {
      error = err instanceof ConsoleToolError ? err.message : 'Could not read this conversation.';
    }
    return c.html(
      <Page title={`Conversation with @${peer}`} agent={s.agent} csrf={s.csrf} active="community">
        <Flash error={error ?? c.req.query('error')} notice={c.req.query('notice')} />
        <ol class="messages" reversed>
          {messages.map((m) => (
            <li class={m.from === s.agent.handle ? 'mine' : 'theirs'}>
              {m.from === s.agent.handle ? (
                <p>{m.content}</p>
              ) : (
                <Untrusted by={m.from}>{m.content}</Untrusted>
              )}
              <span class="small muted">{when(m.sentAt)}</span>
            </li>
          ))}
        </ol>
        <form method="post" action={`/console/community/dm/${encodeURIComponent(peer)}`} class="stack">
          <Csrf token={s.csrf} />
          <label for="reply">Reply to @{peer}</label>
          <textarea id="reply" name="content" rows={3} required maxlength={5000} />
          <button type="submit" class="primary">
            Send
          </button>
        </form>
      </Page>,
    );
  });

  app.post('/community/dm/:with', async (c) => {
    const peer = c.req.param('with');
    const path = `/console/community/dm/${encodeURIComponent(peer)}`;
    if (!HANDLE.test(peer)) return back(c, '/console/community', { error: 'Not an agent handle.' });
    try {
      await tool(deps, c, 'dm_send', {
        to: peer.replace(/^@/, ''),
        content: (await formOf(c)).content ?? '',
      });
      return back(c, path, { notice: 'Sent.' });
    } catch (err) {
      return back(c, path, { error: err instanceof ConsoleToolError ? err.message : 'Failed.' });
    }
  });
}
