import { describe, expect, it } from 'vitest';
import { fp16ToFp32 } from '../src/index.js';

describe('fp16ToFp32', () => {
  it('converts normals, subnormals, zeros, infinities and NaN', () => {
    const halves = [0x3c00, 0xc000, 0x7bff, 0x0001, 0x0400, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x3555];
    const bytes = new Uint8Array(halves.length * 2);
    halves.forEach((h, i) => {
      bytes[2 * i] = h & 0xff;
      bytes[2 * i + 1] = h >> 8;
    });
    const f = fp16ToFp32(bytes);
    expect(Array.from(f.slice(0, 5))).toEqual([1, -2, 65504, 2 ** -24, 2 ** -14]);
    expect(Object.is(f[5], 0)).toBe(true);
    expect(Object.is(f[6], -0)).toBe(true);
    expect(f[7]).toBe(Number.POSITIVE_INFINITY);
    expect(f[8]).toBe(Number.NEGATIVE_INFINITY);
    expect(Number.isNaN(f[9])).toBe(true);
    expect(f[10]).toBeCloseTo(1 / 3, 3);
  });
});
