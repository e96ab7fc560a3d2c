import { describe, it } from 'vitest';
import { matrixSuite } from './clients-matrix.js';

/**
 * The client matrix's SDK cells over stdio (`pnpm --dir <checkout> lore start --stdio`, as the
 * README prints it: a Lore process a cell, hence `pnpm test:slow`): the SDK v2 (2026-07-28) and
 * SDK v1 (2025-11-25) clients list, call once with success, and get 400, 401, 403, 404, 409 and
 * 429 after listing. Over HTTP: test/clients.test.ts.
 */
describe('client matrix: the SDK clients over stdio, every error code', () => {
  const suite = matrixSuite();
  for (const name of ['SDK v2 (2026-07-28)', 'SDK v1 (2025-11-25)'] as const)
    it(`${name} over stdio`, () => suite.exercise(name, 'stdio'));
});
