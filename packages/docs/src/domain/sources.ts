import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatOfPath, type SourceFormat } from './parse.js';

/** One document to ingest, before parsing: where it is, what it will be called, how to read it. */
export interface RawDocument {
  /** `documents/<host>/<path without extension>` */
  name: string;
  uri: string;
  format: SourceFormat;
  /** A path for messages (file path or URL). */
  origin: string;
  read(): Promise<string>;
}

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', '.git']);

/**
 * The path part of a document name: extension dropped, `index` standing for its folder,
 * separators normalised, no leading or trailing slash. The root index is `index`.
 */
export function namePath(path: string): string {
  let p = path.split(sep).join('/').replace(/\\/g, '/');
  p = p.replace(/\.(?:md|mdx|markdown|html?|txt)$/i, '');
  p = p.replace(/(?:^|\/)index$/i, '');
  p = p.replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '');
  return p || 'index';
}

/** `documents/<host>/<path>` for a page URL (query and fragment ignored). */
export function nameForUrl(url: URL): string {
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep the encoded form.
  }
  return `documents/${url.host}/${namePath(path)}`;
}

/** The document's URI when published under `baseUri`: `index` files are their folder. */
export function uriUnder(baseUri: URL, relPath: string): string {
  const p = namePath(relPath);
  const isIndex = /(?:^|\/)index\.[a-z]+$/i.test(relPath.replace(/\\/g, '/'));
  const path = p === 'index' ? '' : isIndex ? `${p}/` : p;
  const base = baseUri.href.endsWith('/') ? baseUri : new URL(`${baseUri.href}/`);
  return new URL(path.split('/').map(encodeURIComponent).join('/'), base).href;
}

export interface LocalOptions {
  /** The site the files are published at: names become `documents/<its host>/<its path + file path>`. */
  baseUri?: string | undefined;
}

/**
 * The documents under a folder (recursively; dot-folders, node_modules and build output
 * skipped) or a single file, with names from `--base-uri` or `documents/local/<path>`, where
 * the path starts at the folder's own name.
 */
export async function collectLocal(target: string, opts: LocalOptions = {}): Promise<RawDocument[]> {
  const abs = resolve(target);
  const info = await stat(abs);
  const files: string[] = [];
  let root: string;
  if (info.isDirectory()) {
    root = abs;
    await walk(abs, files);
  } else {
    root = dirname(abs);
    if (formatOfPath(abs)) files.push(abs);
  }
  files.sort();
  const base = opts.baseUri ? new URL(opts.baseUri) : null;
  const prefix = info.isDirectory() && !base ? basename(abs) : '';
  return files.map((file) => {
    const rel = relative(root, file).split(sep).join('/');
    const format = formatOfPath(file)!;
    if (base) {
      const uri = uriUnder(base, rel);
      return {
        name: nameForUrl(new URL(uri)),
        uri,
        format,
        origin: file,
        read: () => readFile(file, 'utf8'),
      };
    }
    const local = namePath(prefix ? `${prefix}/${rel}` : rel);
    return {
      name: `documents/local/${local}`,
      uri: pathToFileURL(file).href,
      format,
      origin: file,
      read: () => readFile(file, 'utf8'),
    };
  });
}

/** Documents for a list of files relative to a root, published under `baseUri` (Lore's own docs). */
export function collectFiles(root: string, files: string[], baseUri: string): RawDocument[] {
  const base = new URL(baseUri);
  return files.flatMap((f) => {
    const file = resolve(root, f);
    const format = formatOfPath(file);
    // A file that is gone is left out, so that its document is removed.
    if (!format || !existsSync(file)) return [];
    const rel = relative(resolve(root), file).split(sep).join('/');
    const uri = uriUnder(base, rel);
    return [
      { name: nameForUrl(new URL(uri)), uri, format, origin: file, read: () => readFile(file, 'utf8') },
    ];
  });
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) await walk(p, out);
    } else if (e.isFile() && formatOfPath(e.name)) out.push(p);
  }
}
