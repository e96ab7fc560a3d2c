import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { forbidden, invalid, limiter, notFound } from '@lore/kit';

/** Largest file read through file_path. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * At most this many files are read at once. Reads run on libuv's small thread pool, which DNS
 * lookups and crypto share: a burst of large (or slow) reads must not take all of it.
 */
export const MAX_CONCURRENT_READS = 2;

/** Runs a file read once one of the few read slots is free. */
export const readFileSlot = limiter(MAX_CONCURRENT_READS);

/** The directories file_path may read from, from `LORE_KNOWLEDGE_ROOTS` (comma-separated). */
export function parseRoots(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => resolve(r));
}

/** True when `p` is `root` itself or below it (both absolute and normalised). */
export function isWithin(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * Reads a file an agent named, only when it lies inside one of the allowed roots. The check is
 * made twice: on the path as written (normalised, so `..` cannot climb out) — which keeps the
 * answer for a path outside the roots a 403 whether or not the file exists — and on the real
 * path with every symlink resolved, so a link inside a root cannot point outside it. The file
 * is then opened without following a final symlink and must be the same file that was checked.
 */
export async function readAllowedFile(
  filePath: string,
  roots: readonly string[],
  maxBytes = MAX_FILE_BYTES,
): Promise<{ bytes: Buffer; realPath: string }> {
  if (roots.length === 0)
    throw forbidden(
      'Reading files is disabled on this node: the operator has not allowed any directory (LORE_KNOWLEDGE_ROOTS).',
      {
        field: 'file_path',
      },
    );
  if (filePath.includes('\0')) throw invalid('file_path', 'no NUL characters');
  if (!isAbsolute(filePath))
    throw invalid('file_path', 'an absolute path, e.g. /path/to/quantum_research.pdf');
  const denied = () =>
    forbidden(
      'Permission denied: file_path is outside the directories this node allows for knowledge files.',
      { field: 'file_path' },
    );
  const lexical = resolve(filePath);
  if (!roots.some((r) => isWithin(r, lexical))) throw denied();

  const realRoots = (await Promise.all(roots.map((r) => realpath(r).catch(() => null)))).filter(
    (r): r is string => r !== null,
  );
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw notFound(`No such file: ${filePath}`, { field: 'file_path' });
    if (code === 'EACCES') throw denied();
    throw err;
  }
  if (!realRoots.some((r) => isWithin(r, real))) throw denied();
  // A FIFO or device would block the read (and the thread-pool slot under it) for as long as
  // its writer likes: only regular files are opened, and O_NONBLOCK covers a swap in between.
  const kind = await lstat(real);
  if (!kind.isFile())
    throw invalid(
      'file_path',
      'a regular file',
      kind.isDirectory()
        ? 'file_path names a directory: name a file.'
        : 'file_path is not a regular file (a FIFO, socket or device cannot be read).',
    );

  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EACCES' || code === 'EPERM') throw denied();
    if (code === 'ENOENT') throw notFound(`No such file: ${filePath}`, { field: 'file_path' });
    if (code === 'EISDIR') throw invalid('file_path', 'a regular file, not a directory');
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw invalid('file_path', 'a regular file', 'file_path is not a regular file.');
    if (st.size > maxBytes)
      throw invalid(
        'file_path',
        `at most ${Math.round(maxBytes / 1024 / 1024)} MiB`,
        `File too large: ${st.size} bytes (at most ${maxBytes}).`,
      );
    // The path may have been swapped for a link since realpath: the opened file must still be inside.
    if ((await realpath(real)) !== real) throw denied();
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes)
      throw invalid('file_path', `at most ${Math.round(maxBytes / 1024 / 1024)} MiB`);
    return { bytes, realPath: real };
  } finally {
    await handle.close();
  }
}
