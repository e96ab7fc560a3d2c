import { createRequire } from 'node:module';

/**
 * The `yaml` package, loaded on the first front matter read (about 0.8 MiB of heap that a
 * process which never reads a Markdown file does not keep).
 */
let yaml: typeof import('yaml') | undefined;
const parseYaml = (text: string): unknown => {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  // Aliases are YAML's one way to expand (a billion laughs): a hundred of them at most.
  return yaml.parse(text, { maxAliasCount: MAX_ALIASES });
};

const MAX_ALIASES = 100;

/** Most characters of a front matter block: metadata, not a document (larger ones are not read). */
export const MAX_FRONT_MATTER_CHARS = 64 * 1024;

export type FrontMatter = Record<string, string | string[]>;

const BLOCK = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

const scalar = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/**
 * A Markdown file's leading YAML block (`---` … `---` or `...`), read with the `yaml` package:
 * top-level scalars as strings, lists of scalars as string lists, keys in lower case. Anything
 * else (nested maps, empty values) is left out, and a block that is not valid YAML gives no
 * data and an `error` saying why, rather than failing the document. Without front matter, `data` is empty and the body is
 * the whole text. A block longer than `MAX_FRONT_MATTER_CHARS`, or one whose aliases expand
 * past a hundred, is not read either (an `error` again).
 */
export function frontMatter(text: string): { data: FrontMatter; body: string; error?: string } {
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const m = BLOCK.exec(src);
  if (!m) return { data: {}, body: src };
  const body = src.slice(m[0].length);
  if (m[1]!.length > MAX_FRONT_MATTER_CHARS)
    return {
      data: {},
      body,
      error: `front matter is longer than ${MAX_FRONT_MATTER_CHARS.toLocaleString('en-US')} characters`,
    };
  let parsed: unknown;
  try {
    parsed = parseYaml(m[1]!);
  } catch (err) {
    // The reason, for callers that report it (a value with `: ` in it wants quotes).
    return {
      data: {},
      body,
      error: `front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`,
    };
  }
  const data: FrontMatter = {};
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { data, body };
  for (const [key, value] of Object.entries(parsed)) {
    if (Array.isArray(value)) {
      data[key.toLowerCase()] = value.map(scalar).filter((v): v is string => v !== undefined && v !== '');
      continue;
    }
    const s = scalar(value)?.trim();
    if (s) data[key.toLowerCase()] = s;
  }
  return { data, body };
}
