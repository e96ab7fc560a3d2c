/**
 * How far the int8 model's vectors are from fp32's: 600 paragraphs of the undici documentation
 * (the docs evaluation's corpus) embedded by both, the cosine of each pair, and how often the two
 * agree on a paragraph's nearest neighbour. `pnpm --filter @lore/minilm-onnx exec tsx
 * bench/int8-agreement.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOnnxEmbedder } from '../src/index.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '../../docs/eval/corpora/undici/docs');
function walk(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.md') ? [join(d, e.name)] : [],
  );
}
const texts = walk(dir)
  .flatMap((f) => readFileSync(f, 'utf8').split(/\n\n+/))
  .filter((t) => t.length > 40)
  .slice(0, 600);
const a = await createOnnxEmbedder({ precision: 'fp32' });
const b = await createOnnxEmbedder({ precision: 'int8' });
let t = performance.now();
const va = await a.embed(texts);
const ta = performance.now() - t;
t = performance.now();
const vb = await b.embed(texts);
const tb = performance.now() - t;
const cos = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
const agree = va.map((v, i) => cos(v, vb[i]!)).sort((x, y) => x - y);
console.log(
  'texts',
  texts.length,
  'fp32 ms',
  ta.toFixed(0),
  'int8 ms',
  tb.toFixed(0),
  'ratio',
  (ta / tb).toFixed(2),
);
console.log(
  'agreement min',
  agree[0],
  'p1',
  agree[Math.floor(agree.length * 0.01)],
  'p50',
  agree[agree.length >> 1],
);
// nearest-neighbour agreement: for the first 100 texts, top-1 neighbour among the rest
let same = 0;
for (let i = 0; i < 100; i++) {
  const best = (vs: Float32Array[]) => {
    let bi = -1;
    let bs = -2;
    vs.forEach((v, j) => {
      if (j === i) return;
      const s = cos(vs[i]!, v);
      if (s > bs) {
        bs = s;
        bi = j;
      }
    });
    return bi;
  };
  if (best(va) === best(vb)) same++;
}
console.log('top-1 neighbour same in', same, 'of 100');
await a.close();
await b.close();
