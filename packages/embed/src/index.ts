export type { EmbeddingsConfig, RemoteEmbeddingsConfig } from './config.js';
export { EmbeddingsSettings, RemoteEmbeddingsSettings } from './config.js';
export type { EmbeddingsChoice } from './from-config.js';
export { embedderFromConfig, embeddingsChoice } from './from-config.js';
export type { HttpEmbedderOptions } from './http.js';
export { createHttpEmbedder, httpEmbedderFromConfig } from './http.js';
export type { LocalEmbedderOptions, LocalEmbedderState } from './local.js';
export { LOCAL_IDLE_MS, LOCAL_MAX_BATCH, LocalEmbedder } from './local.js';
export {
  LOCAL_DIMENSIONS,
  LOCAL_GRAPH_VERSION,
  LOCAL_MODEL,
  LOCAL_MODEL_PACKAGE,
  LOCAL_MODEL_VERSION,
  LOCAL_PRECISION,
  LOCAL_WEIGHTS_SHA256,
} from './model.js';
export type { Embedder, EmbedLog } from './port.js';
export { EmbedderUnavailableError } from './port.js';
export type { ThreadEntry } from './thread.js';
export { threadEntry } from './thread.js';
