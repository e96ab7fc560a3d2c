/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { ConsoleToolError } from '../call.js';
import { type ConsoleDeps, type ConsoleEnv, tool } from '../context.js';
import { Page, Untrusted, when } from '../layout.js';

interface PeerState {
  peer: string;
  status: string;
  updated_at: string;
}
interface Answer {
  peer: string;
  text: string;
  citations: Array<{ source: string; excerpt: string }>;
  revision: number;
  received_at: string;
}
interface Asked {
  id: string;
  question: string;
  asked_at: string;
  expires_at: string;
  broadcast: boolean;
  peers: PeerState[];
  answers: Answer[];
}

export function registerAsked(app: Hono<ConsoleEnv>, deps: ConsoleDeps) {
  app.get('/asked', async (c) => {
    const s = c.get('session');
    const r = await tool<{ questions: Asked[]; total: number }>(deps, c, 'cqListAskedQuestions', {
      limit: 50,
    });
    return c.html(
      <Page title="Asked" agent={s.agent} csrf={s.csrf} active="asked">
        <p class="lede">
          Your own questions to peers: {r.data.total} in all{r.data.total > 50 ? ', the latest 50 here' : ''}.
        </p>
        {r.data.questions.length ? null : <p class="empty">You have not asked anything yet.</p>}
        {r.data.questions.map((q) => (
          <article class="card" id={`asked-${q.id}`}>
            <header class="card-head">
              <span class="muted small">
                {q.id} · asked {when(q.asked_at)} ·{' '}
                {q.broadcast ? 'to everyone' : `to ${q.peers.length} peer(s)`}
              </span>
            </header>
            <h2 class="question">{q.question}</h2>
            <ul class="peers">
              {q.peers.map((p) => (
                <li>
                  @{p.peer} <span class={`status ${p.status}`}>{p.status}</span>
                </li>
              ))}
            </ul>
            {q.answers.map((a) => (
              <section class="answer" aria-label={`Answer from @${a.peer}`}>
                <Untrusted by={a.peer}>{a.text}</Untrusted>
                <p class="small muted">
                  revision {a.revision} · {when(a.received_at)}
                  {a.citations.length
                    ? ` · cites ${[...new Set(a.citations.map((x) => x.source))].join(', ')}`
                    : ''}
                </p>
              </section>
            ))}
            {q.answers.length ? (
              <div>
                <button
                  type="button"
                  hx-get={`/console/asked/${encodeURIComponent(q.id)}/summary`}
                  hx-target={`#summary-${q.id}`}
                >
                  Summarize the answers
                </button>
                <div id={`summary-${q.id}`} aria-live="polite" />
              </div>
            ) : null}
          </article>
        ))}
      </Page>,
    );
  });

  app.get('/asked/:id/summary', async (c) => {
    try {
      const r = await tool<{ summary: string | null; strategy: string | null; pending: number }>(
        deps,
        c,
        'cqSummarizeAnswers',
        { related_question: c.req.param('id') },
      );
      return c.html(
        <div class="preview-box">
          <p>{r.data.summary ?? 'No answers to summarize yet.'}</p>
          <p class="small muted">
            {r.data.strategy ? `Summarized by ${r.data.strategy}` : ''}
            {r.data.pending ? ` · ${r.data.pending} peer(s) have not answered yet` : ''}
          </p>
        </div>,
      );
    } catch (err) {
      return c.html(<p class="error">{err instanceof ConsoleToolError ? err.message : 'Failed.'}</p>, 422);
    }
  });
}
