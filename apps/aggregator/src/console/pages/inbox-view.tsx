/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { Csrf, Untrusted, when } from '../layout.js';

export interface Citation {
  source: string;
  excerpt: string;
}

/** A received query as cqListRequestedQueries returns it; fields beyond these are read generically. */
export interface ReceivedQuery {
  id: string;
  from: string;
  question: string;
  status: string;
  timestamp: string;
  draft: { text: string; citations: Citation[]; strategy: string; edited: boolean } | null;
  decision: { reason: string; decided_by: string; condition: string | null; at: string | null } | null;
  /** Nothing matched (status no-knowledge): the passages of the owner's knowledge that came closest. */
  closest?: Array<{ source: string; excerpt: string; score: number }>;
  [extra: string]: unknown;
}

export interface AskerInfo {
  displayName: string;
  bio: string;
  skills: string[];
  connected: boolean;
}

/** Statuses that wait for the owner: a draft to decide on, or (no-knowledge) a question to answer or decline. */
export const WAITING = new Set(['pending', 'held', 'no-knowledge']);

/** Why a query waits, from whatever the tools say: a hold reason, the gate's reason, a manual source. */
export function whyWaiting(q: ReceivedQuery): string[] {
  // The tools' reason names tools; the console has buttons for them.
  if (q.status === 'no-knowledge')
    return ['Nothing in your knowledge matched, so nothing was drafted: write an answer, or decline.'];
  const reasons: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.trim() && !reasons.includes(v.trim())) reasons.push(v.trim());
  };
  for (const k of ['hold_reason', 'held_reason', 'reason']) add(q[k]);
  for (const k of ['hold', 'held']) {
    const v = q[k];
    if (v && typeof v === 'object') add((v as { reason?: unknown }).reason);
  }
  add(q.decision?.reason);
  if (q.status === 'held' && !reasons.length) reasons.push('Held for your review.');
  if (!reasons.length) reasons.push('No condition decided it.');
  return reasons;
}

/** Who wrote a draft, in the owner's terms. */
export const DRAFTED_BY = {
  extractive: 'Quoted from your knowledge, sentence by sentence (no language model)',
  endpoint: 'Written from your knowledge by the configured language model',
  sampling: 'Written from your knowledge by your MCP client’s model',
  manual: 'Written by you',
} as const;

/** A question nothing matched: the passages that came closest, so the owner can answer it or decline. */
export function ClosestView({ closest }: { closest: NonNullable<ReceivedQuery['closest']> }) {
  return (
    <div class="closest">
      <p>
        <strong>Nothing in your knowledge matched.</strong>
      </p>
      {closest.length ? (
        <>
          <p class="muted small">Closest passages (below the relevance threshold):</p>
          <ol class="citations">
            {closest.map((c) => (
              <li>
                <strong>{c.source}</strong> <span class="muted small">score {c.score}</span>
                <blockquote>{c.excerpt}</blockquote>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p class="muted small">No passage came close.</p>
      )}
    </div>
  );
}

export function DraftView({ draft }: { draft: ReceivedQuery['draft'] }) {
  if (!draft) return <p class="muted">No draft: your knowledge has nothing on this.</p>;
  return (
    <div class="draft">
      <p class="draft-text">{draft.text}</p>
      <p class="muted small">
        {DRAFTED_BY[draft.strategy as keyof typeof DRAFTED_BY] ?? `Drafted by ${draft.strategy}`}
        {draft.edited ? ' · edited by you' : ''}
      </p>
      {draft.citations.length ? (
        <details>
          <summary>
            {draft.citations.length} cited passage{draft.citations.length === 1 ? '' : 's'}
          </summary>
          <ol class="citations">
            {draft.citations.map((c) => (
              <li>
                <strong>{c.source}</strong>
                <blockquote>{c.excerpt}</blockquote>
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </div>
  );
}

export function QueryCard({ q, asker, csrf }: { q: ReceivedQuery; asker?: AskerInfo; csrf: string }) {
  const waiting = WAITING.has(q.status);
  const nothing = q.status === 'no-knowledge';
  const base = `/console/inbox/${encodeURIComponent(q.id)}`;
  const target = { 'hx-target': `#q-${q.id}`, 'hx-swap': 'outerHTML' };
  return (
    <article class={`card status-${q.status}`} id={`q-${q.id}`} tabindex={0} data-query={q.id}>
      <header class="card-head">
        <span class={`status ${q.status}`}>{q.status}</span>
        <span>
          from{' '}
          <details class="asker">
            <summary>@{q.from}</summary>
            {asker ? (
              <div>
                <p>
                  <strong>{asker.displayName}</strong> ·{' '}
                  {asker.connected ? 'a connection of yours' : 'not a connection'}
                </p>
                {asker.bio ? <Untrusted by={q.from}>{asker.bio}</Untrusted> : null}
                {asker.skills.length ? <p class="small">Skills: {asker.skills.join(', ')}</p> : null}
              </div>
            ) : (
              <p class="muted">Profile unavailable.</p>
            )}
          </details>
        </span>
        <span class="muted small">{when(q.timestamp)}</span>
      </header>
      <h2 class="question">
        <Untrusted by={q.from}>{q.question}</Untrusted>
      </h2>
      {nothing ? <ClosestView closest={q.closest ?? []} /> : <DraftView draft={q.draft} />}
      {waiting ? (
        <p class="why">
          <strong>Waiting because:</strong> {whyWaiting(q).join(' · ')}
        </p>
      ) : q.decision ? (
        <p class="why">
          <strong>{q.status}</strong> by {q.decision.decided_by}
          {q.decision.condition ? ` (condition: ${q.decision.condition})` : ''}: {q.decision.reason}
        </p>
      ) : null}
      {waiting ? (
        <div class="actions">
          {q.draft ? (
            <form method="post" action={`${base}/approve`} hx-post={`${base}/approve`} {...target}>
              <Csrf token={csrf} />
              <button type="submit" class="primary" data-key="a">
                Approve
              </button>
            </form>
          ) : null}
          <details class="edit" data-key="e">
            <summary>{nothing ? 'Write an answer' : 'Edit, then approve'}</summary>
            <form method="post" action={`${base}/edit`} hx-post={`${base}/edit`} {...target}>
              <Csrf token={csrf} />
              <label for={`answer-${q.id}`}>Answer to send</label>
              <textarea id={`answer-${q.id}`} name="answer" rows={6} required maxlength={10000}>
                {q.draft?.text ?? ''}
              </textarea>
              <div class="row">
                <button
                  type="button"
                  hx-post={`${base}/preview`}
                  hx-target={`#preview-${q.id}`}
                  hx-swap="innerHTML"
                  hx-include="closest form"
                >
                  Preview
                </button>
                <button type="submit" class="primary">
                  {nothing ? 'Send answer' : 'Save and approve'}
                </button>
              </div>
              <div id={`preview-${q.id}`} class="preview" aria-live="polite" />
            </form>
          </details>
          <details class="reject" data-key="r">
            <summary>{nothing ? 'Decline' : 'Reject'}</summary>
            <form method="post" action={`${base}/reject`} hx-post={`${base}/reject`} {...target}>
              <Csrf token={csrf} />
              <label for={`reason-${q.id}`}>Reason (optional, kept in the decision log)</label>
              <input id={`reason-${q.id}`} name="reason" maxlength={500} />
              <button type="submit" class="danger">
                {nothing ? 'Decline' : 'Reject'}
              </button>
            </form>
          </details>
        </div>
      ) : null}
    </article>
  );
}

/** What the asker will receive: the answer, its sources, and who it comes from. */
export function AnswerPreview({ text, q, from }: { text: string; q: ReceivedQuery; from: string }) {
  return (
    <div class="preview-box">
      <p class="small muted">
        @{q.from} will receive this answer from @{from}:
      </p>
      <p class="draft-text">{text}</p>
      {q.draft?.citations.length ? (
        <p class="small muted">
          Sources cited: {[...new Set(q.draft.citations.map((c) => c.source))].join(', ')}
        </p>
      ) : null}
    </div>
  );
}

export function InboxList({
  queries,
  askers,
  csrf,
}: {
  queries: ReceivedQuery[];
  askers: Map<string, AskerInfo>;
  csrf: string;
}) {
  return (
    <section id="inbox-list" aria-label="Waiting for you">
      {queries.length ? (
        queries.map((q) => <QueryCard q={q} asker={askers.get(q.from)} csrf={csrf} />)
      ) : (
        <p class="empty">Nothing is waiting for you.</p>
      )}
    </section>
  );
}
