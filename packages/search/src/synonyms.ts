import { stem } from './stem.js';
import { isContentTerm, tokenize } from './terms.js';

/**
 * A small maintained list of abbreviations and close terms, as software people write them. Each
 * group is a set of interchangeable ways to say one thing; a query that says one of them also
 * looks for the others (at a lower weight than its own words). Keep entries general — terms any
 * reader of technical text would call equivalent — never words picked to fix one question.
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['nlp', 'natural language processing'],
  ['ml', 'machine learning'],
  ['ai', 'artificial intelligence'],
  ['llm', 'large language model'],
  ['dl', 'deep learning'],
  ['cv', 'computer vision'],
  ['rl', 'reinforcement learning'],
  ['k8s', 'kubernetes'],
  ['db', 'database'],
  ['js', 'javascript'],
  ['ts', 'typescript'],
  ['env', 'environment variable'],
  ['config', 'configuration', 'settings'],
  ['auth', 'authentication'],
  ['authz', 'authorization'],
  ['repo', 'repository'],
  ['qc', 'quantum computing'],
  ['qec', 'quantum error correction'],
  ['ci', 'continuous integration'],
  ['cd', 'continuous delivery'],
  ['devops', 'operations'],
  ['api', 'endpoint'],
  ['ui', 'user interface'],
  ['ux', 'user experience'],
  ['os', 'operating system'],
  ['vm', 'virtual machine'],
  ['iot', 'internet of things'],
  ['sql', 'relational database'],
  ['nosql', 'document database'],
  ['ssl', 'tls'],
  ['h2', 'http2'],
  ['h2c', 'http2 cleartext'],
  ['ws', 'websocket'],
  ['sse', 'server sent events', 'event stream'],
  ['jwt', 'json web token'],
  ['jwks', 'json web key set'],
  ['cors', 'cross origin'],
  ['csrf', 'cross site request forgery'],
  ['xss', 'cross site scripting'],
  ['csp', 'content security policy'],
  ['hsts', 'strict transport security'],
  ['ssr', 'server side rendering'],
  ['ssg', 'static site generation', 'static generation'],
  ['spa', 'single page application'],
  ['i18n', 'internationalization', 'locale'],
  ['dns', 'name resolution'],
  ['ttl', 'time to live'],
  ['rpc', 'remote procedure call'],
  ['cli', 'command line'],
  ['gzip', 'compress', 'compression'],
  ['crawl', 'crawler', 'scrape', 'scraper', 'scraping'],
  ['mock', 'fake', 'stub'],
  ['retry', 'retries', 'backoff'],
  ['cookie', 'cookies'],
  ['param', 'parameter'],
  ['404', 'not found'],
  ['url', 'uri'],
  ['devtools', 'developer tools', 'dev tools'],
  ['timeout', 'time out', 'deadline'],
  ['upload', 'file upload', 'multipart'],
  ['login', 'log in', 'sign in'],
  ['logout', 'log out', 'sign out'],
];

/** A phrase as stems (the form expansion and ranking compare). */
const stemsOf = (phrase: string) => tokenize(phrase).map(stem);

interface Expansion {
  /** Stems of the alternative, one or more words. */
  stems: string[];
  /** The alternative as written. */
  text: string;
}

// Alternatives by the first stem of each entry: `k8s` → [kubernetes], `natural` → [nlp]…
const index = new Map<string, Array<{ from: string[]; to: Expansion[] }>>();
for (const group of SYNONYM_GROUPS) {
  const entries = group.map((text) => ({ text, stems: stemsOf(text) }));
  for (const e of entries) {
    const to = entries.filter((o) => o !== e).map((o) => ({ text: o.text, stems: o.stems }));
    const head = e.stems[0]!;
    const list = index.get(head) ?? [];
    list.push({ from: e.stems, to });
    index.set(head, list);
  }
}

/**
 * The alternatives a text's words call for: for every entry of `SYNONYM_GROUPS` the text holds
 * (as stems, consecutive for a phrase), the group's other entries. The text's own words are not
 * repeated; each alternative once.
 */
export function synonymsOf(text: string): Expansion[] {
  const words = [...tokenize(text), ...versionedNames(text)].map(stem);
  const own = new Set(words);
  const seen = new Set<string>();
  const out: Expansion[] = [];
  for (let i = 0; i < words.length; i++) {
    for (const { from, to } of index.get(words[i]!) ?? []) {
      if (!from.every((s, j) => words[i + j] === s)) continue;
      for (const alt of to) {
        const key = alt.stems.join(' ');
        if (seen.has(key) || (alt.stems.length === 1 && own.has(alt.stems[0]!))) continue;
        seen.add(key);
        out.push(alt);
      }
    }
  }
  return out;
}

/**
 * The words of a query worth adding to a search for it: its synonyms (see `synonymsOf`) and the
 * parts of its identifiers (see `identifierParts`), as plain words (not stems), without stop
 * words or the query's own words.
 */
export function expansionWords(text: string): string[] {
  const own = new Set(tokenize(text));
  const out = new Set<string>();
  const add = (w: string) => {
    if (!own.has(w) && isContentTerm(w)) out.add(w);
  };
  for (const w of versionedNames(text)) add(w);
  for (const alt of synonymsOf(text)) for (const w of tokenize(alt.text)) add(w);
  for (const w of identifierParts(text)) add(w);
  return [...out];
}

const VERSIONED = /(?<![\p{L}\p{N}])(\p{L}+)\/(\d+(?:\.\d+)*)(?![\p{L}\p{N}])/gu;

/**
 * Names written with a version after a slash, joined as one word, lower-cased (`HTTP/2` →
 * http2, `HTTP/1.1` → http11): the tokenizer cuts them into the name and a number, which loses
 * the version (one-character tokens are not searched) and with it the name's abbreviations
 * (`http2` ~ `h2` in `SYNONYM_GROUPS`).
 */
export function versionedNames(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(VERSIONED)) out.add(`${m[1]}${m[2]!.replaceAll('.', '')}`.toLowerCase());
  return [...out];
}

const CAMEL = /[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*/g;

/**
 * The words inside the camelCase and PascalCase identifiers of `text`, lower-cased
 * (`showRoutes` → show, routes; `EnvHttpProxyAgent` → env, http, proxy, agent; `H2CClient` → h2c,
 * client). snake_case and dotted names need nothing: the tokenizer already splits them, and
 * the whole name stays searchable as the phrase of its parts.
 */
export function identifierParts(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CAMEL)) {
    const word = m[0];
    if (!/[a-z]/.test(word)) continue; // ALLCAPS is an acronym, not an identifier
    const parts = word
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .toLowerCase()
      .split(' ')
      .filter((p) => p.length > 1);
    if (parts.length > 1) out.push(...parts);
  }
  return out;
}

/**
 * `text` with the parts of its identifiers added at the end, for indexing: a chunk about
 * `bodyLimit` is then found by "body limit" too, and by `bodyLimit` itself.
 */
export function withIdentifierParts(text: string): string {
  const parts = identifierParts(text);
  return parts.length ? `${text}\n${[...new Set(parts)].join(' ')}` : text;
}
