import onnxProto from 'onnx-proto';
import type { Tensor } from './safetensors.js';

/** Nodes and initializers of an ONNX graph as they are added, and the int8 weight quantisation. */

const { onnx } = onnxProto;
const DT = onnx.TensorProto.DataType;
const AT = onnx.AttributeProto.AttributeType;

type Attr = { name: string; i?: number; f?: number; ints?: number[] };

export class GraphBuilder {
  readonly nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  readonly initializers: InstanceType<typeof onnx.TensorProto>[] = [];
  private counter = 0;

  fresh(prefix: string): string {
    return `${prefix}_${this.counter++}`;
  }

  node(opType: string, inputs: string[], attrs: Attr[] = [], outputs = 1, domain = ''): string[] {
    const names = Array.from({ length: outputs }, () => this.fresh(opType));
    this.nodes.push(
      onnx.NodeProto.create({
        opType,
        domain,
        name: names[0],
        input: inputs,
        output: names,
        attribute: attrs.map((a) => {
          if (a.ints) return onnx.AttributeProto.create({ name: a.name, type: AT.INTS, ints: a.ints });
          if (a.f !== undefined) return onnx.AttributeProto.create({ name: a.name, type: AT.FLOAT, f: a.f });
          return onnx.AttributeProto.create({ name: a.name, type: AT.INT, i: a.i ?? 0 });
        }),
      }),
    );
    return names;
  }

  op(opType: string, inputs: string[], attrs: Attr[] = [], domain = ''): string {
    return this.node(opType, inputs, attrs, 1, domain)[0]!;
  }

  private init(name: string, dims: number[], dataType: number, bytes: Uint8Array): string {
    this.initializers.push(onnx.TensorProto.create({ name, dims, dataType, rawData: bytes }));
    return name;
  }

  float(name: string, dims: number[], data: Float32Array): string {
    return this.init(name, dims, DT.FLOAT, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  int8(name: string, dims: number[], data: Int8Array): string {
    return this.init(name, dims, DT.INT8, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  int64(name: string, values: number[]): string {
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    return this.init(name, [values.length], DT.INT64, new Uint8Array(data.buffer));
  }

  scalar(name: string, value: number): string {
    return this.float(name, [], Float32Array.of(value));
  }
}

/** PyTorch's Linear weight is [out, in]; MatMul wants [in, out]. */
export function transpose(w: Tensor): Float32Array {
  const [rows, cols] = w.shape as [number, number];
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = w.data[r * cols + c]!;
  return out;
}

/** Symmetric int8 per output column of an [in, out] matrix: scale = max |w| / 127, zero point 0. */
export function quantizeColumns(
  w: Float32Array,
  rows: number,
  cols: number,
): { q: Int8Array; scale: Float32Array } {
  const scale = new Float32Array(cols);
  for (let c = 0; c < cols; c++) {
    let max = 0;
    for (let r = 0; r < rows; r++) max = Math.max(max, Math.abs(w[r * cols + c]!));
    scale[c] = max > 0 ? max / 127 : 1;
  }
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      q[r * cols + c] = Math.max(-127, Math.min(127, Math.round(w[r * cols + c]! / scale[c]!)));
    }
  }
  return { q, scale };
}

/** Symmetric int8 per row of a [rows, cols] matrix (an embedding table): scale = max |w| / 127. */
export function quantizeRows(
  w: Float32Array,
  rows: number,
  cols: number,
): { q: Int8Array; scale: Float32Array } {
  const scale = new Float32Array(rows);
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let c = 0; c < cols; c++) max = Math.max(max, Math.abs(w[r * cols + c]!));
    const s = max > 0 ? max / 127 : 1;
    scale[r] = s;
    for (let c = 0; c < cols; c++)
      q[r * cols + c] = Math.max(-127, Math.min(127, Math.round(w[r * cols + c]! / s)));
  }
  return { q, scale };
}
