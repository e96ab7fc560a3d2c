import { SERVICES, startAllInOne, TOOLSET_NAMES } from '@lore/aggregator';
import { APPS_HOST, appFetch, connectClient, testConfig } from '@lore/kit/testing';
import { type Row, row } from '../lib.js';

/** A rough token count for JSON a host hands its model: four bytes a token (no tokenizer is a dependency). */
export const tokens = (bytes: number) => Math.round(bytes / 4);

/** What one `tools/list` weighs, in bytes of its JSON result and estimated tokens. */
export interface CatalogSize {
  name: string;
  tools: number;
  bytes: number;
  tokens: number;
}

/**
 * The size of `tools/list` as hosts receive it, every page of it: the whole catalog as a plain
 * client lists it (what most hosts put before their model on every turn), as an MCP Apps host
 * lists it (the apps' own tools too), and each toolset alone (`?toolsets=`).
 */
export async function catalogSizes(dataDir: string): Promise<CatalogSize[]> {
  const lore = await startAllInOne(
    testConfig(dataDir, { LORE_RATE_LIMITS: 'false', LORE_INGEST_OWN_DOCS: 'false' }),
    { services: SERVICES },
  );
  try {
    const measure = async (name: string, opts: Parameters<typeof connectClient>[1]) => {
      const client = await connectClient(appFetch(lore.app), opts);
      try {
        const { tools } = await client.listTools();
        const bytes = Buffer.byteLength(JSON.stringify({ tools }));
        return { name, tools: tools.length, bytes, tokens: tokens(bytes) };
      } finally {
        await client.close();
      }
    };
    const sizes = [
      await measure('whole catalog', {}),
      await measure('whole catalog, MCP Apps host', { capabilities: APPS_HOST }),
    ];
    for (const set of TOOLSET_NAMES)
      sizes.push(await measure(`toolset ${set}`, { url: `http://127.0.0.1/mcp?toolsets=${set}` }));
    return sizes;
  } finally {
    await lore.close();
  }
}

export async function catalogSuite(opts: { dataDir: string }): Promise<Row[]> {
  const sizes = await catalogSizes(opts.dataDir);
  const whole = sizes[0]!;
  return sizes.flatMap((s) => [
    row({
      suite: 'catalog',
      name: `tools/list, ${s.name} (${s.tools} tool${s.tools === 1 ? '' : 's'}), bytes`,
      value: s.bytes,
      unit: 'B',
      ...(s === whole ? {} : { baseline: { name: 'whole catalog', value: whole.bytes } }),
    }),
    row({
      suite: 'catalog',
      name: `tools/list, ${s.name}, estimated tokens`,
      value: s.tokens,
      unit: 'tokens',
    }),
  ]);
}
