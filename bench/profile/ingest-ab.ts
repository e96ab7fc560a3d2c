/**
 * The knowledge ingest through MCP (the ingest suite's lone uploader; events delivered by the
 * round's end) of this checkout against another one, interleaved source by source in one
 * process so that both see the same load: `npx tsx --conditions=development
 * bench/profile/ingest-ab.ts <other checkout> [sources] [rounds]`. Each side runs its own
 * services, database and parser thread from its own copy of the packages (the MCP client and
 * the services' settings are this checkout's for both). A round sends the same sources to both,
 * alternating which goes first, and prints each side's median and mean milliseconds a source.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { appFetch, connectClient, ok } from '@lore/kit/testing';
import { Corpus } from '../corpus.js';
import { benchDeps, registerAgent, until } from '../services.js';

const other = resolve(process.argv[2] ?? '');
const sources = Number(process.argv[3] ?? 60);
const rounds = Number(process.argv[4] ?? 3);
const corpus = new Corpus(1234);
const texts = Array.from({ length: sources }, (_, s) => corpus.markdown(corpus.topic(s), 100));

type Call = (name: string, text: string) => Promise<number>;

/** Starts one checkout's users and knowledge services and returns a call adding a source. */
async function side(
  root: string,
  dir: string,
): Promise<{ call: Call; delivered: () => number; stop: () => Promise<void> }> {
  const at = (p: string) => import(pathToFileURL(join(root, p)).href);
  const kit = await at('packages/kit/src/index.ts');
  const { createKnowledgeService } = await at('packages/knowledge/src/index.ts');
  const { createUsersService } = await at('packages/users/src/index.ts');
  const { KnowledgeSourceAdded } = await at('packages/schema/src/index.ts');
  const bus = new kit.MemoryBus();
  const deps = benchDeps(dir, {}, bus);
  const users = await createUsersService(deps);
  const knowledge = await createKnowledgeService(deps);
  await users.start();
  await knowledge.start();
  const agent = await registerAgent(users, 'bench_ingester');
  const client = await connectClient(appFetch(knowledge), { key: agent.key });
  let delivered = 0;
  await bus.listen(KnowledgeSourceAdded.subject, () => {
    delivered++;
  });
  const call: Call = async (name, text) => {
    const r = await ok(client, 'updateKnowledgeSources', { file_name: name, file_content: text });
    return (r.data as { chunks: number }).chunks;
  };
  await call('warm-up.md', corpus.markdown(corpus.topic(9999), 5));
  return {
    call,
    delivered: () => delivered,
    stop: async () => {
      await client.close();
      await knowledge.stop();
      await users.stop();
      await bus.close();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (let r = 0; r < rounds; r++) {
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'lore-ingest-ab-')));
  const sides = [await side(process.cwd(), dirs[0]!), await side(other, dirs[1]!)];
  const ms: number[][] = [[], []];
  const chunks = [0, 0];
  const load0 = loadavg()[0]!;
  for (let s = 0; s < sources; s++) {
    for (const k of (s + r) % 2 ? [1, 0] : [0, 1]) {
      const t0 = performance.now();
      chunks[k]! += await sides[k]!.call(`source-${s}.md`, texts[s]!);
      ms[k]!.push(performance.now() - t0);
    }
  }
  // Every source's event delivered (the relay's work overlaps the next calls, as in the suite).
  for (const s of sides) await until(async () => s.delivered() >= sources + 1, 60_000, 1);
  for (const s of sides) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  const say = (k: number) => {
    const sum = ms[k]!.reduce((a, b) => a + b, 0);
    return `median ${median(ms[k]!).toFixed(1)} ms, mean ${(sum / sources).toFixed(1)} ms a source (${Math.round((chunks[k]! * 1000) / sum)} chunks/s)`;
  };
  console.log(
    `round ${r + 1} (load ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}): this checkout ${say(0)}; other ${say(1)}; ` +
      `median ratio ${(median(ms[1]!) / median(ms[0]!)).toFixed(2)}`,
  );
}
process.exit(0);
