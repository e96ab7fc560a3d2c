/**
 * The same docs searches on two docs databases, interleaved question by question in one process
 * (so that a busy machine's noise falls on both alike): two copies of a kept bench corpus that
 * differ in how they were written or kept (one merged into one FTS segment, say).
 *
 *   npx tsx --conditions=development bench/profile/docs-ab.ts <docs.db A> <docs.db B> [questions] [rounds]
 *
 * Prints CPU and wall ms per search for each (p50, p90, p99 over every search of every round
 * after a warm-up round) and how many pages differ between the two. Not part of `pnpm bench`.
 */
import { DocsSearch, DocsStore } from '@lore/docs';
import { createLogger, openDatabase } from '@lore/kit';
import { Corpus } from '../corpus.js';
import { percentile } from '../lib.js';

const [a, b] = [process.argv[2], process.argv[3]];
if (!a || !b) throw new Error('usage: bench/profile/docs-ab.ts <docs.db A> <docs.db B> [questions] [rounds]');
const N = Number(process.argv[4] ?? 400);
const ROUNDS = Number(process.argv[5] ?? 2);
const log = createLogger({ name: 'profile', level: 'silent' });
const corpus = new Corpus(42);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const sides = await Promise.all(
  [a, b].map(async (path) => {
    const db = await openDatabase({ url: `file:${path}`, schema: {} });
    return {
      path,
      db,
      search: new DocsSearch(new DocsStore(db), null, log),
      cpu: [] as number[],
      wall: [] as number[],
    };
  }),
);
const chunks = Number((await sides[0]!.db.$client.execute('select count(*) as n from chunks')).rows[0]!.n);
// The bench's timed docs questions (its first 30 are its warm-up).
const questions = Array.from({ length: N }, (_, i) =>
  corpus.question(corpus.topic(((i + 30) * 104729) % Math.ceil(chunks / 10))),
);
let differ = 0;
for (let round = 0; round <= ROUNDS; round++) {
  for (const [i, q] of questions.entries()) {
    const pages: string[] = [];
    // Alternate which side goes first.
    for (const side of i % 2 ? [...sides].reverse() : sides) {
      const w = performance.now();
      const c = cpuMs();
      const page = await side.search.search({ query: q, filter: null, offset: 0, limit: 5 });
      const cpu = cpuMs() - c;
      const wall = performance.now() - w;
      if (round > 0) {
        side.cpu.push(cpu);
        side.wall.push(wall);
      }
      pages.push(page.hits.map((h) => h.chunkId).join());
    }
    if (round === 1 && pages[0] !== pages[1]) differ++;
  }
}
const f = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return [50, 90, 99].map((p) => percentile(s, p).toFixed(2)).join(' / ');
};
process.stdout.write(`docs: ${chunks} chunks, ${N} questions × ${ROUNDS} rounds, interleaved\n`);
for (const [k, s] of sides.entries())
  process.stdout.write(
    `  ${'AB'[k]} ${s.path}\n    CPU ms p50 / p90 / p99 ${f(s.cpu)}\n    wall ms p50 / p90 / p99 ${f(s.wall)}\n`,
  );
process.stdout.write(`  pages that differ between A and B: ${differ} of ${N}\n`);
for (const s of sides) s.db.$client.close();
