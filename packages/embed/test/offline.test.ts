import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

it('embeds with the network refused on every thread, and tries no connection', async () => {
  const { stdout, stderr } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      '--require',
      fixture('no-network.cjs'),
      '--conditions=development',
      fixture('embed-offline.ts'),
    ],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 60_000 },
  );
  // The hook is in force in the main thread and in worker threads (the model runs in one).
  expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
    mainBlocked: true,
    workerBlocked: true,
    dims: 384,
  });
  // The main thread's probe is the only attempt (the worker's probe writes to its own stream).
  expect(stderr.match(/NETWORK ATTEMPT.*/g)).toEqual(['NETWORK ATTEMPT: net.connect (main thread) 9']);
});
