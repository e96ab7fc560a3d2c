import { describe, it } from 'vitest';
import { matrixSuite } from './clients-matrix.js';

/**
 * The client matrix's SDK cells over HTTP, in `pnpm test`: the SDK v2 (2026-07-28) and SDK v1
 * (2025-11-25) clients against the all-in-one: list, a success, and 400, 401, 403, 404, 409 and
 * 429 after listing. Over stdio (a Lore process a cell): test/clients-stdio.test.ts; the
 * Inspector CLI's cells: test/clients-inspector.test.ts (both `pnpm test:slow`).
 */
describe('client matrix: the SDK clients over HTTP, every error code', () => {
  const suite = matrixSuite();
  for (const name of ['SDK v2 (2026-07-28)', 'SDK v1 (2025-11-25)'] as const)
    it(`${name} over http`, () => suite.exercise(name, 'http'));
});
