/**
 * CPU of the sensitivity rules on what the ingest suite uploads: `classifyByRules` over the
 * passages of the suite's generated sources (heading path and text, as the classifier sees them),
 * in rounds. `npx tsx --conditions=development bench/tools/classify-cpu.ts [sources=20] [rounds=3]`.
 * The rules' gates (packages/kit/src/moderation/rule-gates.ts) have their own bench beside them.
 */
import { splitDocument } from '@lore/search';
import { classifyByRules } from '../../packages/knowledge/src/domain/sensitivity.js';
import { passageForClassification } from '../../packages/knowledge/src/domain/sensitivity-classifier.js';
import { Corpus } from '../corpus.js';

const sources = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 3);
const corpus = new Corpus(1234);
const passages: string[] = [];
for (let s = 0; s < sources; s++)
  for (const p of await splitDocument(corpus.markdown(corpus.topic(s), 100), { format: 'markdown' }))
    passages.push(passageForClassification(p.headingPath, p.text));

for (let r = 1; r <= rounds; r++) {
  const c0 = process.cpuUsage();
  let sensitive = 0;
  for (const p of passages) if ((await classifyByRules(p)).length) sensitive++;
  const c = process.cpuUsage(c0);
  console.log(
    `round ${r}: ${passages.length} passages, ${((c.user + c.system) / passages.length).toFixed(0)} CPU µs a passage, ${sensitive} sensitive`,
  );
}
