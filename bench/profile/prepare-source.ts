/**
 * CPU of the knowledge service's parser-thread steps on the ingest suite's sources, run in
 * this thread: `npx tsx --conditions=development bench/profile/prepare-source.ts [sources]`
 * (`node --cpu-prof --import tsx --conditions=development …` for a profile). Prints the
 * milliseconds of CPU a 100-section source takes for each step, best of five rounds.
 */
import { keywords, splitDocument, stem, tokenize } from '@lore/search';
import { passageText, SOURCE_KEYWORDS } from '../../packages/knowledge/src/domain/knowledge-types.js';
import { streamSource } from '../../packages/knowledge/src/domain/prepare-source.js';
import { indexTerms } from '../../packages/knowledge/src/domain/search-terms.js';
import { Corpus } from '../corpus.js';

const n = Number(process.argv[2] ?? 200);
const corpus = new Corpus(1234);
const texts = Array.from({ length: n }, (_, s) => corpus.markdown(corpus.topic(s), 100));
const pieces = await Promise.all(texts.map((t) => splitDocument(t, { format: 'markdown' })));
const passages = pieces.map((ps) => ps.map((p) => passageText(p.headingPath, p.text)));

async function cpuPerSource(f: (i: number) => unknown): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await f(i);
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000 / n);
  }
  return best;
}

const steps: Array<[string, (i: number) => unknown]> = [
  ['split', (i) => splitDocument(texts[i]!, { format: 'markdown' })],
  ['terms, tokenize+stem+join (before)', (i) => passages[i]!.map((p) => tokenize(p).map(stem).join(' '))],
  ['terms, one pass (indexTerms)', (i) => passages[i]!.map(indexTerms)],
  ['keywords', (i) => keywords(texts[i]!, SOURCE_KEYWORDS)],
  [
    'streamSource (split + terms in parts + keywords)',
    (i) => streamSource(texts[i]!, 'markdown', 256, () => {}),
  ],
];
for (const [name, f] of steps) console.log(`${(await cpuPerSource(f)).toFixed(2)} ms  ${name}`);
