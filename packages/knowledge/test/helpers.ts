import type { LoreService } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, testDeps } from '@lore/kit/testing';
import type { EventEnvelope } from '@lore/schema';
import { createUsersService } from '@lore/users/testing';
import { createKnowledgeService, type KnowledgeServiceOptions } from '../src/index.js';

/**
 * A one-page-per-entry PDF with Helvetica text, written by hand (pdf-lib is not a dependency
 * of this package): catalog, pages, a content stream per page, and an exact xref table.
 */
export function makePdf(pages: string[][]): Buffer {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const n = pages.length;
  const fontId = 3 + 2 * n;
  const objects: string[] = [];
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + 2 * i} 0 R`).join(' ')}] /Count ${n} >>`);
  pages.forEach((lines, i) => {
    const stream = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${esc(l)}) Tj T*`).join(' ')} ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + 2 * i} 0 R /Resources << /Font << /F1 ${fontId} 0 R >> >> >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export const QUANTUM_TEXT = [
  'Quantum computing uses qubits, which can hold a superposition of zero and one, and entanglement between qubits.',
  'The latest developments in quantum computing include error-corrected logical qubits demonstrated on superconducting processors,',
  'trapped-ion machines with higher gate fidelity, and quantum advantage experiments in random circuit sampling.',
  'Quantum error correction with surface codes is the main road to fault-tolerant quantum computers.',
].join(' ');

export const SOURDOUGH_TEXT = [
  'Sourdough bread is leavened by a starter of wild yeast and lactic acid bacteria.',
  'Feed the starter with flour and water every day; bake when it doubles within six hours.',
  'Hydration, fermentation time and oven temperature decide the crumb and the crust of the loaf.',
].join(' ');

export interface Env {
  env: ReturnType<typeof testDeps>;
  users: LoreService;
  knowledge: LoreService;
  anon: Client;
  events: EventEnvelope[];
  register(handle: string): Promise<{ key: string; id: string; client: Client }>;
  close(): Promise<void>;
}

/** Users + knowledge on one in-process bus, with every lore.knowledge.* event recorded. */
export async function startEnv(
  vars: Record<string, string> = {},
  opts: KnowledgeServiceOptions = {},
): Promise<Env> {
  const env = testDeps({ LORE_RATE_LIMITS: 'false', ...vars });
  const events: EventEnvelope[] = [];
  await env.deps.bus.listen('lore.knowledge.>', (e) => events.push(e));
  const users = await createUsersService(env.deps);
  const knowledge = await createKnowledgeService(env.deps, opts);
  await users.start();
  await knowledge.start();
  const anon = await connectClient(appFetch(users.app));
  return {
    env,
    users,
    knowledge,
    anon,
    events,
    async register(handle) {
      const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      return {
        key: r.data.apiKey,
        id: r.data.agent.id,
        client: await connectClient(appFetch(knowledge.app), { key: r.data.apiKey }),
      };
    },
    async close() {
      await knowledge.stop();
      await users.stop();
      await env.cleanup();
    },
  };
}
