/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import { callAs, hasTool } from '../call.js';
import { back, type ConsoleDeps, type ConsoleEnv, formOf, isHtmx, tool } from '../context.js';
import type { Job, Jobs } from '../jobs.js';
import { Csrf, when } from '../layout.js';

interface Corpora {
  corpora: Array<{ source: string; documents: number; chunks: number; updateTime: string }>;
  documents: number;
  chunks: number;
  operator: boolean;
}

/** The docs service's corpora, when it is in the catalog; null when it is not. */
export async function corporaOf(deps: ConsoleDeps, c: Context<ConsoleEnv>): Promise<Corpora | null> {
  if (!hasTool(deps.backend, 'docs_corpora')) return null;
  return (await tool<Corpora>(deps, c, 'docs_corpora').catch(() => null))?.data ?? null;
}

export function CorporaTable({ data, oob }: { data: Corpora; oob?: boolean }) {
  return (
    <div id="corpora" hx-swap-oob={oob ? 'true' : undefined}>
      {data.corpora.length ? (
        <section class="table-wrap" tabindex={0} aria-label="Corpora table">
          <table>
            <thead>
              <tr>
                <th scope="col">Corpus</th>
                <th scope="col">Documents</th>
                <th scope="col">Chunks</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.corpora.map((k) => (
                <tr data-corpus={k.source}>
                  <td>
                    <strong>{k.source}</strong>
                  </td>
                  <td>{k.documents.toLocaleString('en-US')}</td>
                  <td>{k.chunks.toLocaleString('en-US')}</td>
                  <td>{when(k.updateTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : (
        <p class="empty">No documentation corpus yet.</p>
      )}
    </div>
  );
}

function JobView({ job, corpora }: { job: Job; corpora?: Corpora | null }) {
  const running = job.state === 'running';
  const pct = job.total ? Math.round((job.progress / job.total) * 100) : undefined;
  return (
    <div
      id="ingest-job"
      class="preview-box"
      role="status"
      data-state={job.state}
      hx-get={running ? `/console/network/ingest/${job.id}` : undefined}
      hx-trigger={running ? 'every 1s' : undefined}
      hx-swap="outerHTML"
    >
      <p>
        <strong>{job.title}</strong> — {running ? 'ingesting' : job.state === 'done' ? 'done' : 'failed'}
      </p>
      {running ? (
        <>
          <progress max={100} value={pct ?? undefined} aria-label="Ingest progress" />
          <p class="small">{job.message}</p>
        </>
      ) : (
        <p class={job.state === 'failed' ? 'error' : 'small'}>{job.result}</p>
      )}
      {!running && corpora ? <CorporaTable data={corpora} oob /> : null}
    </div>
  );
}

export function CorporaSection({ data, csrf }: { data: Corpora; csrf: string }) {
  return (
    <section aria-labelledby="corpora-h">
      <h2 id="corpora-h">
        Documentation corpora ({data.documents.toLocaleString('en-US')} documents,{' '}
        {data.chunks.toLocaleString('en-US')} chunks)
      </h2>
      <CorporaTable data={data} />
      {data.operator ? (
        <form
          method="post"
          action="/console/network/ingest"
          hx-post="/console/network/ingest"
          hx-target="#ingest-job"
          hx-swap="outerHTML"
          class="stack"
        >
          <Csrf token={csrf} />
          <label for="inputs">Folders, files or URLs to ingest (one a line)</label>
          <textarea id="inputs" name="inputs" rows={2} required placeholder="https://hono.dev/docs/" />
          <label for="corpus">Corpus name (optional: the host or folder name otherwise)</label>
          <input id="corpus" name="source" maxlength={100} />
          <button type="submit" class="primary">
            Ingest
          </button>
          <div id="ingest-job" />
        </form>
      ) : (
        <p class="small muted">
          Only this server's operators may ingest (LORE_DOCS_OPERATORS; by default the node's owner).
        </p>
      )}
    </section>
  );
}

export function registerCorpora(app: Hono<ConsoleEnv>, deps: ConsoleDeps, jobs: Jobs) {
  app.post('/network/ingest', async (c) => {
    const s = c.get('session');
    const form = await formOf(c);
    const inputs = (form.inputs ?? '')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    const source = form.source?.trim();
    const job = jobs.start(s.agent.handle, `Ingest ${source || inputs.join(', ')}`, async (report) => {
      const r = await callAs(
        deps.backend,
        s.key,
        'docs_ingest',
        { inputs, ...(source ? { source } : {}) },
        AbortSignal.timeout(60 * 60 * 1000),
        report,
      );
      return r.text;
    });
    if (!isHtmx(c)) return back(c, '/console/network', { notice: `${job.title}: started.` });
    return c.html(<JobView job={job} />);
  });

  app.get('/network/ingest/:id', async (c) => {
    const job = jobs.get(c.req.param('id'), c.get('session').agent.handle);
    if (!job)
      return c.html(<p class="error">This ingest is not known here (it ran on another process).</p>, 404);
    const corpora = job.state === 'running' ? null : await corporaOf(deps, c);
    return c.html(<JobView job={job} corpora={corpora} />);
  });
}
