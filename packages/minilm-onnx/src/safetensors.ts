import { readFileSync } from 'node:fs';

/** One tensor of a safetensors file, up-cast to fp32 (integer tensors are skipped). */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** IEEE 754 half → single precision, for every value of a little-endian fp16 buffer. */
export function fp16ToFp32(bytes: Uint8Array): Float32Array {
  const n = bytes.length >>> 1;
  const out = new Float32Array(n);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    const h = bytes[2 * i]! | (bytes[2 * i + 1]! << 8);
    const sign = (h & 0x8000) << 16;
    const exp = (h >>> 10) & 0x1f;
    let mant = h & 0x3ff;
    if (exp === 0) {
      if (mant === 0) {
        bits[i] = sign;
      } else {
        // Subnormal: shift the mantissa up until its leading bit is the implicit one.
        let e = -1;
        do {
          e++;
          mant <<= 1;
        } while ((mant & 0x400) === 0);
        bits[i] = sign | ((127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
      }
    } else if (exp === 0x1f) {
      bits[i] = sign | 0x7f800000 | (mant << 13);
    } else {
      bits[i] = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
  }
  return out;
}

/**
 * Reads a safetensors file: an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and byte range, then the raw data. F16, BF16 and F32 tensors come back as
 * fp32; integer tensors (BERT's `position_ids` buffer) are left out.
 */
export function readSafetensors(path: string): Map<string, Tensor> {
  const file = readFileSync(path);
  const headerLength = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    HeaderEntry | Record<string, string>
  >;
  const base = 8 + headerLength;
  const tensors = new Map<string, Tensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const { dtype, shape, data_offsets } = entry as HeaderEntry;
    const raw = file.subarray(base + data_offsets[0], base + data_offsets[1]);
    let data: Float32Array;
    if (dtype === 'F16') {
      data = fp16ToFp32(raw);
    } else if (dtype === 'F32') {
      data = new Float32Array(raw.length / 4);
      new Uint8Array(data.buffer).set(raw);
    } else if (dtype === 'BF16') {
      data = new Float32Array(raw.length / 2);
      const bits = new Uint32Array(data.buffer);
      for (let i = 0; i < data.length; i++) bits[i] = (raw[2 * i]! | (raw[2 * i + 1]! << 8)) << 16;
    } else {
      continue;
    }
    const expected = shape.reduce((a, b) => a * b, 1);
    if (data.length !== expected) {
      throw new Error(`safetensors ${path}: ${name} holds ${data.length} values, its shape says ${expected}`);
    }
    tensors.set(name, { shape, data });
  }
  return tensors;
}
