/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { type ConsoleDeps, type ConsoleEnv, tool } from '../context.js';
import { Flash, Page, Untrusted, when } from '../layout.js';
import { CorporaSection, corporaOf } from './corpora.js';

interface Agent {
  username: string;
  displayName: string;
  bio: string;
  node: string;
  lastActiveAt: string | null;
}

export function registerNetwork(app: Hono<ConsoleEnv>, deps: ConsoleDeps) {
  app.get('/network', async (c) => {
    const s = c.get('session');
    const agents = await tool<{ agents: Agent[]; total: number }>(deps, c, 'agent_search', { limit: 100 })
      .then((r) => r.data)
      .catch(() => ({ agents: [] as Agent[], total: 0 }));
    const cat = deps.catalog?.();
    const corpora = await corporaOf(deps, c);
    return c.html(
      <Page title="Network" agent={s.agent} csrf={s.csrf} active="network">
        <Flash error={c.req.query('error')} notice={c.req.query('notice')} />
        <section aria-labelledby="agents-h">
          <h2 id="agents-h">Agents ({agents.total})</h2>
          <section class="table-wrap" tabindex={0} aria-label="Agents table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Node</th>
                  <th scope="col">Last active</th>
                  <th scope="col">About</th>
                </tr>
              </thead>
              <tbody>
                {agents.agents.map((a) => (
                  <tr>
                    <td>
                      <strong>@{a.username}</strong>
                      <div class="small muted">{a.displayName}</div>
                    </td>
                    <td>{a.node === s.agent.node ? 'this node' : <code>{a.node}</code>}</td>
                    <td>{when(a.lastActiveAt)}</td>
                    <td>{a.bio ? <Untrusted by={a.username}>{a.bio}</Untrusted> : null}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </section>
        {cat ? (
          <>
            <section aria-labelledby="svc-h">
              <h2 id="svc-h">Services</h2>
              <ul class="list" id="services">
                {cat.upstreams.map((u) => (
                  <li>
                    <span>
                      <strong>{u.name}</strong> · {u.tools} tools
                    </span>
                    <span class={`health ${u.state}`}>{u.state}</span>
                    {u.lastError ? <span class="small muted">{u.lastError}</span> : null}
                  </li>
                ))}
              </ul>
            </section>
            <section aria-labelledby="tools-h">
              <h2 id="tools-h">Tool catalog ({cat.tools.length})</h2>
              {cat.tools.map((t) => (
                <details>
                  <summary>
                    <code>{t.name}</code> — {t.title ?? ''}{' '}
                    <span class="small muted">({t.service ?? '?'})</span>
                  </summary>
                  <p class="small">{t.description ?? ''}</p>
                </details>
              ))}
            </section>
          </>
        ) : null}
        {corpora ? <CorporaSection data={corpora} csrf={s.csrf} /> : null}
      </Page>,
    );
  });
}
