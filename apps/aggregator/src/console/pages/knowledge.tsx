/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { plural } from '@lore/kit';
import type { Context, Hono } from 'hono';
import { ConsoleToolError } from '../call.js';
import { back, type ConsoleDeps, type ConsoleEnv, formOf, isHtmx, tool } from '../context.js';
import { Csrf, Flash, Page, when } from '../layout.js';

interface Source {
  name: string;
  format: string;
  chunks: number;
  characters: number;
  pages: number | null;
  updatedAt: string;
  sharing: Sharing;
  summary: string;
  /** Passages classified sensitive at ingest (absent from an older knowledge service). */
  sensitivity?: Record<'credentials' | 'contact' | 'health' | 'money' | 'personal' | 'unclassified', number>;
}
const SENSITIVE: Array<[keyof NonNullable<Source['sensitivity']>, string]> = [
  ['credentials', 'credentials'],
  ['contact', 'personal contact data'],
  ['health', 'health facts'],
  ['money', 'money or pay'],
  ['personal', 'other personal matters'],
  ['unclassified', 'not classified yet'],
];

/** "3 passages hold credentials" lines: answers drawn from them always wait for the owner. */
function SensitivityNote({ s }: { s: Source }) {
  const counts = s.sensitivity;
  if (!counts) return null;
  const parts = SENSITIVE.filter(([k]) => counts[k] > 0).map(
    ([k, words]) => `${counts[k]} passage${counts[k] === 1 ? '' : 's'}: ${words}`,
  );
  if (!parts.length) return null;
  return (
    <div class="small sensitivity" data-sensitivity={s.name}>
      {parts.join('; ')} — answers drawn from them always wait for you.
    </div>
  );
}
type Sharing = 'auto' | 'manual' | 'private';
const SHARING: Record<Sharing, string> = {
  auto: 'auto: your conditions may release answers drawn from it',
  manual: 'manual: answers drawn from it always wait for you',
  private: 'private: never used to answer others',
};
interface Passage {
  source: string;
  excerpt: string;
  score: number;
  relevant: boolean;
  headingPath: string[];
  foundBy?: string[];
}

const TEXT_TYPES = /\.(txt|text|md|markdown|html?)$/i;

/** What updateKnowledgeSources takes for a file: its text, or a PDF's bytes in base64. */
export function toSourceContent(name: string, bytes: Uint8Array): string {
  if (/\.pdf$/i.test(name)) return Buffer.from(bytes).toString('base64');
  if (TEXT_TYPES.test(name)) return new TextDecoder('utf-8').decode(bytes);
  throw new ConsoleToolError(
    415,
    `'${name}' is not a text file: upload plain text (.txt), Markdown (.md), HTML (.html) or PDF (.pdf).`,
  );
}

function SharingForm({ s, csrf }: { s: Source; csrf: string }) {
  const id = `sharing-${s.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <form
      method="post"
      action="/console/knowledge/sharing"
      hx-post="/console/knowledge/sharing"
      hx-target="#sources"
      hx-swap="outerHTML"
      class="row sharing-form"
    >
      <Csrf token={csrf} />
      <input type="hidden" name="source" value={s.name} />
      <label for={id} class="visually-hidden">
        Sharing of {s.name}
      </label>
      <select id={id} name="sharing" class={`sharing ${s.sharing}`}>
        {(Object.keys(SHARING) as Sharing[]).map((v) => (
          <option value={v} selected={v === s.sharing} title={SHARING[v]}>
            {v}
          </option>
        ))}
      </select>
      <button type="submit" aria-label={`Save sharing of ${s.name}`}>
        Save
      </button>
    </form>
  );
}

function SourcesTable({ sources, csrf }: { sources: Source[]; csrf: string }) {
  return (
    <section id="sources" class="table-wrap" tabindex={0} aria-label="Sources table">
      {sources.length ? (
        <table>
          <caption class="small muted">
            Sharing — {SHARING.auto}; {SHARING.manual}; {SHARING.private}.
          </caption>
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Sharing</th>
              <th scope="col">Size</th>
              <th scope="col">Chunks</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => (
              <tr data-source={s.name}>
                <td>
                  <strong>{s.name}</strong> <span class="muted small">{s.format}</span>
                  {s.summary ? <div class="small muted">{s.summary}</div> : null}
                  <SensitivityNote s={s} />
                </td>
                <td>
                  <SharingForm s={s} csrf={csrf} />
                </td>
                <td>
                  {s.characters.toLocaleString('en-US')} chars
                  {s.pages !== null ? `, ${s.pages} p.` : ''}
                </td>
                <td>{s.chunks}</td>
                <td>{when(s.updatedAt)}</td>
                <td>
                  <form method="post" action="/console/knowledge/remove">
                    <Csrf token={csrf} />
                    <input type="hidden" name="source" value={s.name} />
                    <button type="submit" class="danger" aria-label={`Remove ${s.name}`}>
                      Remove
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="empty">No sources yet: your node cannot answer anyone until you add some.</p>
      )}
    </section>
  );
}

/** Which sources a draft would draw on, and what their sharing means for it. */
export function drawsOn(passages: Passage[], sources: Source[]) {
  const sharing = new Map(sources.map((s) => [s.name, s.sharing]));
  const relevant = [...new Set(passages.filter((p) => p.relevant).map((p) => p.source))];
  const used = relevant.filter((n) => sharing.get(n) !== 'private');
  return {
    used,
    manual: used.filter((n) => sharing.get(n) === 'manual'),
    private: relevant.filter((n) => sharing.get(n) === 'private'),
  };
}

export function registerKnowledge(app: Hono<ConsoleEnv>, deps: ConsoleDeps) {
  const sources = async (c: Context<ConsoleEnv>) =>
    (await tool<{ sources: Source[] }>(deps, c, 'listKnowledgeSources')).data.sources;

  app.get('/knowledge', async (c) => {
    const s = c.get('session');
    return c.html(
      <Page title="Knowledge" agent={s.agent} csrf={s.csrf} active="knowledge">
        <Flash error={c.req.query('error')} notice={c.req.query('notice')} />
        <section aria-labelledby="src-h">
          <h2 id="src-h">Sources</h2>
          <SourcesTable sources={await sources(c)} csrf={s.csrf} />
        </section>
        <section aria-labelledby="up-h">
          <h2 id="up-h">Add a source</h2>
          <form
            method="post"
            action="/console/knowledge/upload"
            enctype="multipart/form-data"
            class="stack dropzone"
            data-upload
          >
            <Csrf token={s.csrf} />
            <label for="file">File (text, Markdown, HTML or PDF) — or drop it here</label>
            <input id="file" name="file" type="file" accept=".txt,.md,.markdown,.html,.htm,.pdf" required />
            <progress max={100} value={0} hidden />
            <button type="submit" class="primary">
              Upload
            </button>
          </form>
        </section>
        <section aria-labelledby="search-h">
          <h2 id="search-h">What would a question retrieve?</h2>
          <search>
            <form
              method="get"
              action="/console/knowledge/search"
              hx-get="/console/knowledge/search"
              hx-target="#search-results"
              class="row"
            >
              <label for="q" class="visually-hidden">
                Question
              </label>
              <input id="q" name="q" type="search" required placeholder="Ask as a peer would…" />
              <button type="submit">Search</button>
            </form>
          </search>
          <div id="search-results" aria-live="polite" />
        </section>
      </Page>,
    );
  });

  app.get('/knowledge/search', async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    if (!q) return c.html(<p class="muted">Type a question.</p>);
    try {
      const r = await tool<{ passages: Passage[]; terms: string[]; strategy: string }>(
        deps,
        c,
        'searchKnowledge',
        {
          query: q,
          limit: 10,
        },
      );
      const d = drawsOn(r.data.passages, await sources(c));
      const results = (
        <div>
          <div class="draws">
            {d.used.length ? (
              <p>
                A draft would draw on: <strong>{d.used.join(', ')}</strong>
                {d.manual.length
                  ? ` — it would wait for you, as ${d.manual.join(', ')} ${d.manual.length === 1 ? 'is' : 'are'} shared manual.`
                  : '.'}
              </p>
            ) : (
              <p>
                No passage is relevant enough: no draft. Asked of you by name, the question still reaches your
                inbox, marked "nothing in your knowledge matched"; a broadcast one is dropped.
              </p>
            )}
            {d.private.length ? (
              <p class="small muted">Left out as private: {d.private.join(', ')}.</p>
            ) : null}
          </div>
          <ol class="passages">
            {r.data.passages.map((p) => (
              <li class={p.relevant ? 'relevant' : 'weak'}>
                <strong>{p.source}</strong>
                {p.headingPath.length ? (
                  <span class="muted small"> · {p.headingPath.join(' › ')}</span>
                ) : null}
                <span class="muted small"> · {p.relevant ? 'relevant' : 'below the drafting threshold'}</span>
                <span class="muted small">
                  {' '}
                  · found by {p.foundBy?.length ? p.foundBy.join(' and ') : 'words'}
                </span>
                <blockquote>{p.excerpt}</blockquote>
              </li>
            ))}
          </ol>
          <p class="small muted">
            Terms: {r.data.terms.join(', ') || '—'} · {r.data.strategy}
          </p>
        </div>
      );
      if (isHtmx(c)) return c.html(results);
      const s = c.get('session');
      return c.html(
        <Page title="Knowledge search" agent={s.agent} csrf={s.csrf} active="knowledge">
          {results}
        </Page>,
      );
    } catch (err) {
      return c.html(
        <p class="error">{err instanceof ConsoleToolError ? err.message : 'Search failed.'}</p>,
        422,
      );
    }
  });

  app.post('/knowledge/upload', async (c) => {
    let notice: string;
    try {
      const body = await c.req.parseBody();
      const file = body.file;
      if (!(file instanceof File) || !file.name) throw new ConsoleToolError(400, 'Choose a file to upload.');
      const name = file.name.split(/[\\/]/).pop()!;
      const content = toSourceContent(name, new Uint8Array(await file.arrayBuffer()));
      const r = await tool<{ source: string; chunks: number; replaced: boolean }>(
        deps,
        c,
        'updateKnowledgeSources',
        {
          file_name: name,
          file_content: content,
        },
      );
      notice = `${r.data.replaced ? 'Replaced' : 'Added'} ${r.data.source}: ${plural(r.data.chunks, 'chunk')} indexed.`;
    } catch (err) {
      const error = err instanceof ConsoleToolError ? err.message : 'Upload failed.';
      if (!isHtmx(c)) return back(c, '/console/knowledge', { error });
      c.header('HX-Trigger', JSON.stringify({ 'lore:error': error }));
      return c.text(error, err instanceof ConsoleToolError && err.code === 415 ? 415 : 422);
    }
    if (!isHtmx(c)) return back(c, '/console/knowledge', { notice });
    c.header('HX-Trigger', JSON.stringify({ 'lore:announce': notice }));
    return c.html(<SourcesTable sources={await sources(c)} csrf={c.get('session').csrf} />);
  });

  app.post('/knowledge/sharing', async (c) => {
    const form = await formOf(c);
    let notice: string;
    try {
      const r = await tool<{ source: string; sharing: Sharing; previous: Sharing }>(
        deps,
        c,
        'setKnowledgeSourceSharing',
        { source: form.source ?? '', sharing: form.sharing ?? '' },
      );
      notice = `${r.data.source} is now shared ${SHARING[r.data.sharing]}.`;
    } catch (err) {
      const error = err instanceof ConsoleToolError ? err.message : 'Failed.';
      if (!isHtmx(c)) return back(c, '/console/knowledge', { error });
      c.header('HX-Reswap', 'none');
      c.header('HX-Trigger', JSON.stringify({ 'lore:error': error }));
      return c.body(null, 422);
    }
    if (!isHtmx(c)) return back(c, '/console/knowledge', { notice });
    c.header('HX-Trigger', JSON.stringify({ 'lore:announce': notice }));
    return c.html(<SourcesTable sources={await sources(c)} csrf={c.get('session').csrf} />);
  });

  app.post('/knowledge/remove', async (c) => {
    const source = (await formOf(c)).source ?? '';
    try {
      const r = await tool<{ chunks: number }>(deps, c, 'removeKnowledgeSource', { source });
      return back(c, '/console/knowledge', {
        notice: `Removed ${source} (${plural(r.data.chunks, 'chunk')}).`,
      });
    } catch (err) {
      return back(c, '/console/knowledge', {
        error: err instanceof ConsoleToolError ? err.message : 'Failed.',
      });
    }
  });
}
