/** Turns texts into vectors: the port semantic search uses (knowledge bases, the docs corpus). */
export interface Embedder {
  /**
   * The model the vectors come from, with its version: vectors of two models are never compared,
   * so whoever stores vectors stores this beside them.
   */
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Ends whatever the embedder keeps running (a model thread); it starts again on the next use. */
  close?(): Promise<void>;
}

/** The log an embedder reports to (a pino logger fits). */
export interface EmbedLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Said by `embed` when the model cannot run here (missing or damaged weights): search stays lexical. */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
}
