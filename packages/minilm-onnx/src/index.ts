export { createOnnxEmbedder, type OnnxEmbedder, type OnnxEmbedderOptions } from './embedder.js';
// The graph writer is not exported here: loading it costs 11.6 MB that a model thread never needs.
export type { BertConfig, Precision } from './graph.js';
export {
  buildOnnxModel,
  DEFAULT_CACHE_DIR,
  ensureOnnxModel,
  GRAPH_VERSION,
  MODEL_FILES,
  type ModelFiles,
  onnxModelPath,
  sha256File,
  WEIGHTS_SHA256,
} from './model.js';
export { fp16ToFp32, readSafetensors } from './safetensors.js';
export { WordPieceTokenizer } from './tokenizer.js';
