import { describe, it } from 'vitest';
import { matrixSuite } from './clients-matrix.js';

/**
 * The client matrix's SDK cells, in `pnpm test`: the SDK v2 (2026-07-28) and SDK v1 (2025-11-25)
 * clients against the all-in-one over HTTP and over stdio (`pnpm --dir <checkout> lore start
 * --stdio`, as the README prints it): list, a success, and 400, 401, 403, 404, 409 and 429 after
 * listing. The Inspector CLI's cells: test/clients-inspector.test.ts (`pnpm test:slow`).
 */
describe('client matrix: the SDK clients, every transport, every error code', () => {
  const suite = matrixSuite();
  for (const transport of ['http', 'stdio'] as const)
    for (const name of ['SDK v2 (2026-07-28)', 'SDK v1 (2025-11-25)'] as const)
      it(`${name} over ${transport}`, () => suite.exercise(name, transport), 120_000);
});
