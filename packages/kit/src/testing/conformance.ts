import { describe, expect, it } from 'vitest';
import { MCP_APP_MIME, MCP_APPS_EXTENSION } from '../apps.js';
import { appOnly } from '../mcp.js';
import type { LoreService } from '../service.js';
import { appFetch, call, connectClient } from './index.js';

export interface ConformanceOptions {
  /** The service under test, started (read when the tests run, after the suite's `beforeAll`). */
  service: () => LoreService;
  /** Every tool it lists, by name. */
  tools: readonly string[];
  /** The tools any caller may use without a key (`agent_register`); default none. */
  public?: readonly string[];
  /**
   * Valid arguments for a tool, so that its refusal without a key is about the key alone
   * (the key is checked before the input either way); default `{}`.
   */
  args?: Readonly<Record<string, Record<string, unknown>>>;
}

/** The capabilities of a client that hosts MCP Apps (it keeps app-only tools from its model). */
export const APPS_HOST = { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } } };

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * What every Lore service promises over MCP, run against the real service through a real MCP
 * client: it lists exactly its tools, each with a title, an object input and output schema and
 * all four annotations; and it refuses every tool but its public ones without a key (401).
 */
export function describeConformance(name: string, opts: ConformanceOptions): void {
  describe(`${name} conformance`, () => {
    it('lists its tools with titles, schemas and all four annotations; app-only tools only to an MCP Apps host', async () => {
      const anon = await connectClient(appFetch(opts.service().app), { capabilities: APPS_HOST });
      const plain = await connectClient(appFetch(opts.service().app));
      try {
        const { tools } = await anon.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([...opts.tools].sort());
        const forModels = tools.filter((t) => !appOnly(t)).map((t) => t.name);
        expect((await plain.listTools()).tools.map((t) => t.name).sort()).toEqual(forModels.sort());
        for (const t of tools) {
          expect(t.title, t.name).toBeTruthy();
          expect(t.inputSchema.type, t.name).toBe('object');
          expect(t.outputSchema?.type, t.name).toBe('object');
          for (const hint of HINTS) expect(typeof t.annotations?.[hint], `${t.name} ${hint}`).toBe('boolean');
        }
      } finally {
        await anon.close();
        await plain.close();
      }
    });

    it('refuses every tool without a key (401), and only its public ones are open', async () => {
      const service = opts.service();
      expect(
        service.tools
          .filter((t) => t.public)
          .map((t) => t.name)
          .sort(),
      ).toEqual([...(opts.public ?? [])].sort());
      const anon = await connectClient(appFetch(service.app));
      try {
        const open = new Set(opts.public ?? []);
        for (const tool of opts.tools.filter((t) => !open.has(t))) {
          const r = await call(anon, tool, opts.args?.[tool] ?? {});
          expect(r.error?.code, tool).toBe(401);
        }
      } finally {
        await anon.close();
      }
    });
  });
}
