/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { describeInterpretation, interpret } from '@lore/approvals';
import type { Context, Hono } from 'hono';
import { ConsoleToolError } from '../call.js';
import { back, type ConsoleDeps, type ConsoleEnv, formOf, tool } from '../context.js';
import { Csrf, Flash, Page, Untrusted, when } from '../layout.js';
import { type ReceivedQuery, WAITING } from './inbox-view.js';

interface Understanding {
  effect: string;
  senders: string;
  topics: string;
  undecidable: string[];
  summary: string;
}
interface ConditionDetail {
  condition: string;
  added_at: string;
  understood_as: Understanding;
}

export interface LogFilter {
  kind?: string | undefined;
  condition?: string | undefined;
  asker?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** Decided queries matching the filter, newest decision first. Manual decisions are `manual:@handle`. */
export function decisionLog(queries: ReceivedQuery[], f: LogFilter): ReceivedQuery[] {
  return queries
    .filter((q) => q.decision?.at && !WAITING.has(q.status))
    .filter((q) => {
      const d = q.decision!;
      const manual = d.decided_by.startsWith('manual:');
      if (f.kind === 'manual' && !manual) return false;
      if (f.kind === 'automatic' && manual) return false;
      if (f.condition && d.condition !== f.condition) return false;
      if (f.asker && q.from !== f.asker.replace(/^@/, '')) return false;
      if (f.from && d.at! < f.from) return false;
      if (f.to && d.at!.slice(0, 10) > f.to) return false;
      return true;
    })
    .sort((a, b) => b.decision!.at!.localeCompare(a.decision!.at!));
}

function Preview({ sentence }: { sentence: string }) {
  if (sentence.trim().length < 3) return <p class="muted small">Type a condition to see how it is read.</p>;
  return null;
}

export function registerConditions(app: Hono<ConsoleEnv>, deps: ConsoleDeps) {
  const page = async (c: Context<ConsoleEnv>) => {
    const s = c.get('session');
    const [conds, queries] = await Promise.all([
      tool<{ details: ConditionDetail[] }>(deps, c, 'cqListAutoApprovalConditions'),
      tool<Record<string, ReceivedQuery>>(deps, c, 'cqListRequestedQueries'),
    ]);
    const all = Object.values(queries.data);
    const f: LogFilter = {
      kind: c.req.query('kind'),
      condition: c.req.query('condition'),
      asker: c.req.query('asker'),
      from: c.req.query('from'),
      to: c.req.query('to'),
    };
    const log = decisionLog(all, f);
    const used = [...new Set(all.map((q) => q.decision?.condition).filter((x): x is string => !!x))];
    const askers = [...new Set(all.map((q) => q.from))].sort();
    return c.html(
      <Page title="Conditions" agent={s.agent} csrf={s.csrf} active="conditions">
        <Flash error={c.req.query('error')} notice={c.req.query('notice')} />
        <section aria-labelledby="cond-h">
          <h2 id="cond-h">Your auto-approval conditions</h2>
          {conds.data.details.length ? (
            <ul class="list" id="conditions">
              {conds.data.details.map((d) => (
                <li>
                  <div>
                    <strong>{d.condition}</strong>
                    <p class="small">{d.understood_as.summary}</p>
                    <p class="small muted">Added {when(d.added_at)}</p>
                  </div>
                  <form method="post" action="/console/conditions/remove">
                    <Csrf token={s.csrf} />
                    <input type="hidden" name="condition" value={d.condition} />
                    <button type="submit" class="danger" aria-label={`Remove condition: ${d.condition}`}>
                      Remove
                    </button>
                  </form>
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">No conditions: every query waits for you.</p>
          )}
          <form method="post" action="/console/conditions" class="stack">
            <Csrf token={s.csrf} />
            <label for="sentence">New condition, in plain words</label>
            <input
              id="sentence"
              name="sentence"
              required
              minlength={3}
              maxlength={500}
              placeholder="Accept queries related to programming from any user"
              hx-post="/console/conditions/preview"
              hx-trigger="input changed delay:300ms"
              hx-target="#cond-preview"
              aria-describedby="cond-preview"
            />
            <div id="cond-preview" class="preview" aria-live="polite">
              <Preview sentence="" />
            </div>
            <button type="submit" class="primary">
              Add condition
            </button>
          </form>
        </section>
        <section aria-labelledby="log-h">
          <h2 id="log-h">Decision log</h2>
          <form method="get" action="/console/conditions" class="filters">
            <label>
              Decided
              <select name="kind">
                <option value="">any way</option>
                <option value="automatic" selected={f.kind === 'automatic'}>
                  automatically
                </option>
                <option value="manual" selected={f.kind === 'manual'}>
                  by hand
                </option>
              </select>
            </label>
            <label>
              Condition
              <select name="condition">
                <option value="">any</option>
                {used.map((u) => (
                  <option value={u} selected={f.condition === u}>
                    {u}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Asker
              <select name="asker">
                <option value="">anyone</option>
                {askers.map((a) => (
                  <option value={a} selected={f.asker === a}>
                    @{a}
                  </option>
                ))}
              </select>
            </label>
            <label>
              From <input type="date" name="from" value={f.from ?? ''} />
            </label>
            <label>
              To <input type="date" name="to" value={f.to ?? ''} />
            </label>
            <button type="submit">Filter</button>
          </form>
          <section class="table-wrap" tabindex={0} aria-label="Decision log table">
            <table id="decision-log">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Asker</th>
                  <th scope="col">Question</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">By</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {log.map((q) => (
                  <tr>
                    <td>{when(q.decision!.at)}</td>
                    <td>@{q.from}</td>
                    <td>
                      <Untrusted by={q.from}>{q.question}</Untrusted>
                    </td>
                    <td>
                      <span class={`status ${q.status}`}>{q.status}</span>
                    </td>
                    <td>
                      {q.decision!.decided_by}
                      {q.decision!.condition ? <div class="small muted">{q.decision!.condition}</div> : null}
                    </td>
                    <td>{q.decision!.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {log.length ? null : <p class="empty">No decisions match.</p>}
          </section>
        </section>
      </Page>,
    );
  };
  app.get('/conditions', page);

  // A preview with the same interpreter the service uses; the saved condition is judged by the service.
  app.post('/conditions/preview', async (c) => {
    const sentence = ((await formOf(c)).sentence ?? '').trim();
    if (sentence.length < 3) return c.html(<Preview sentence={sentence} />);
    const known = await tool<{ active: string[]; inactive: string[] }>(deps, c, 'cqGetActiveUsers')
      .then(
        (r) => new Set([...r.data.active, ...r.data.inactive].map((h) => h.replace(/^@/, '').toLowerCase())),
      )
      .catch(() => new Set<string>());
    const d = describeInterpretation(interpret(sentence, (h) => known.has(h.toLowerCase())));
    return c.html(
      <div class="preview-box">
        <p>
          <strong>{d.effect === 'deny' ? 'Reject' : 'Accept'}</strong> queries from{' '}
          <strong>{d.senders}</strong> about <strong>{d.topics}</strong>.
        </p>
        {d.undecidable.length ? (
          <p class="small">
            Cannot be decided without a language model: {d.undecidable.map((u) => `“${u}”`).join(', ')}.
            Queries it might cover will wait for you.
          </p>
        ) : null}
      </div>,
    );
  });

  app.post('/conditions', async (c) => {
    const sentence = (await formOf(c)).sentence ?? '';
    try {
      const r = await tool<{ understood_as: Understanding }>(deps, c, 'cqAddAutoApprovalCondition', {
        sentence,
      });
      return back(c, '/console/conditions', { notice: `Condition added. ${r.data.understood_as.summary}` });
    } catch (err) {
      return back(c, '/console/conditions', {
        error: err instanceof ConsoleToolError ? err.message : 'Failed.',
      });
    }
  });

  app.post('/conditions/remove', async (c) => {
    const condition = (await formOf(c)).condition ?? '';
    try {
      await tool(deps, c, 'cqRemoveAutoApprovalCondition', { condition });
      return back(c, '/console/conditions', { notice: 'Condition removed.' });
    } catch (err) {
      return back(c, '/console/conditions', {
        error: err instanceof ConsoleToolError ? err.message : 'Failed.',
      });
    }
  });
}
