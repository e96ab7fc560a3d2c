import { serialize } from 'node:v8';
import { prepareSource } from '../../packages/knowledge/src/domain/prepare-source.js';
import { Corpus } from '../corpus.js';
const corpus = new Corpus(1234);
const texts = Array.from({ length: 50 }, (_, s) => corpus.markdown(corpus.topic(s), 100));
const prepared = await Promise.all(texts.map((t) => prepareSource(t, 'markdown', 256)));
console.log('text chars', texts[0]!.length, 'serialized bytes', serialize(prepared[0]).length, Object.keys(prepared[0]!.pieces[0]!));
for (let r = 0; r < 3; r++) {
  const c0 = process.cpuUsage();
  for (const p of prepared) structuredClone(p);
  const c = process.cpuUsage(c0);
  console.log('structuredClone ms/source', ((c.user + c.system) / 1000 / prepared.length).toFixed(3));
}
const { MessageChannel } = await import('node:worker_threads');
const ch = new MessageChannel();
let got = 0;
ch.port2.on('message', () => { got++; });
const c0 = process.cpuUsage();
for (const p of prepared) ch.port1.postMessage(p);
const c = process.cpuUsage(c0);
console.log('postMessage ms/source', ((c.user + c.system) / 1000 / prepared.length).toFixed(3));
ch.port1.close();
