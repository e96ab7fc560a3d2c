import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HTMX_FILE } from './layout.js';

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};

/** The files the console serves itself, so that it works with no internet at all. */
export const ASSET_NAMES = ['console.css', 'console.js', HTMX_FILE] as const;

// From src/console in a checkout, or from dist/ in an installed package.
const DIRS = ['../../assets/', '../assets/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

const cache = new Map<string, { body: string; type: string }>();

export function asset(name: string): { body: string; type: string } | undefined {
  if (!(ASSET_NAMES as readonly string[]).includes(name)) return undefined;
  const hit = cache.get(name);
  if (hit) return hit;
  const dir = DIRS.find((d) => existsSync(d + name));
  if (!dir) return undefined;
  const found = {
    body: readFileSync(dir + name, 'utf8'),
    type: TYPES[name.split('.').pop()!] ?? 'text/plain',
  };
  cache.set(name, found);
  return found;
}
