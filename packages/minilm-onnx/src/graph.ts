import onnxProto from 'onnx-proto';
import { GraphBuilder, quantizeColumns, quantizeRows, transpose } from './graph-builder.js';
import type { Tensor } from './safetensors.js';

const { onnx } = onnxProto;
const DT = onnx.TensorProto.DataType;

/** The parts of a BERT `config.json` the graph needs. */
export interface BertConfig {
  hidden_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  intermediate_size: number;
  layer_norm_eps: number;
  max_position_embeddings: number;
  vocab_size: number;
}

/**
 * `fp32`: every weight in fp32, plain ONNX operators (opset 17).
 * `int8`: the encoder's dense weights quantised to int8 per output column (symmetric), the
 * activations quantised per call (ONNX Runtime's `DynamicQuantizeMatMul`), and the word-embedding
 * table int8 per row (symmetric); position embeddings, biases and LayerNorms stay fp32.
 */
export type Precision = 'fp32' | 'int8';

/** Which dense layers of each encoder layer the int8 model quantises (by name suffix). */
export const QUANTIZED_LAYERS: readonly string[] = [
  'attention.qkv',
  'attention.output.dense',
  'intermediate.dense',
  'output.dense',
];

export interface GraphOptions {
  /**
   * false (default): plain ONNX operators (Reshape, Transpose, MatMul, Softmax, LayerNormalization;
   * ONNX Runtime fuses the GELU itself). true: attention as ONNX Runtime's `MultiHeadAttention`
   * and residual + LayerNorm as `SkipLayerNormalization` (com.microsoft operators of its CPU
   * provider). Same vectors; the fused graph measured no faster here (README), so it is not used.
   */
  fused?: boolean;
  /** For `int8`: which dense layers are quantised, by name suffix (default all four of a layer). */
  quantized?: readonly string[];
}

/**
 * Writes all-MiniLM-L6-v2 (any BERT encoder with absolute positions) as an ONNX model: inputs
 * `input_ids` and `attention_mask` (int64, [batch, sequence]), output `embeddings` (float,
 * [batch, hidden]): the last hidden state mean-pooled over the mask, then L2-normalised, as
 * sentence-transformers does. Token types are all 0 (single sentences), so that row is folded into
 * the position table.
 */
export function buildBertGraph(
  weights: Map<string, Tensor>,
  config: BertConfig,
  precision: Precision,
  options: GraphOptions = {},
): Uint8Array {
  const quantized = options.quantized ?? QUANTIZED_LAYERS;
  const fused = options.fused ?? false;
  const get = (name: string): Tensor => {
    const t = weights.get(name);
    if (!t) throw new Error(`the weights have no tensor ${name}`);
    return t;
  };
  const H = config.hidden_size;
  const heads = config.num_attention_heads;
  const headSize = H / heads;
  const eps = config.layer_norm_eps;
  const g = new GraphBuilder();

  // A dense layer: x [.., in] times the [out, in] PyTorch weight, plus bias. `scale` multiplies
  // weight and bias (the attention's 1/sqrt(head size) is folded into the query projection).
  const dense = (
    x: string,
    name: string,
    weight: Float32Array,
    bias: Float32Array,
    rows: number,
    cols: number,
  ) => {
    const b = g.float(`${name}.bias`, [cols], bias);
    if (precision === 'int8' && quantized.some((q) => name.endsWith(q))) {
      const { q, scale } = quantizeColumns(weight, rows, cols);
      const wq = g.int8(`${name}.weight_q`, [rows, cols], q);
      const ws = g.float(`${name}.weight_scale`, [cols], scale);
      return g.op('DynamicQuantizeMatMul', [x, wq, ws, '', b], [], 'com.microsoft');
    }
    const w = g.float(`${name}.weight`, [rows, cols], weight);
    return g.op('Add', [g.op('MatMul', [x, w]), b]);
  };
  const layerNorm = (x: string, prefix: string) =>
    g.op(
      'LayerNormalization',
      [
        x,
        g.float(`${prefix}.weight`, [H], get(`${prefix}.weight`).data),
        g.float(`${prefix}.bias`, [H], get(`${prefix}.bias`).data),
      ],
      [
        { name: 'axis', i: -1 },
        { name: 'epsilon', f: eps },
      ],
    );

  // LayerNorm(x + residual), as one SkipLayerNormalization when fused.
  const addNorm = (x: string, residual: string, prefix: string) =>
    fused
      ? g.op(
          'SkipLayerNormalization',
          [
            x,
            residual,
            g.float(`${prefix}.weight`, [H], get(`${prefix}.weight`).data),
            g.float(`${prefix}.bias`, [H], get(`${prefix}.bias`).data),
          ],
          [{ name: 'epsilon', f: eps }],
          'com.microsoft',
        )
      : layerNorm(g.op('Add', [x, residual]), prefix);

  // Embeddings: word + (position + token type 0), LayerNorm.
  const wordTable = get('embeddings.word_embeddings.weight').data;
  let word: string;
  if (precision === 'int8') {
    // The table (47 MB in fp32, half the model) kept as int8 rows with a scale each: only the
    // rows a text uses are gathered and scaled back to float.
    const { q, scale } = quantizeRows(wordTable, config.vocab_size, H);
    const rows = g.op(
      'Gather',
      [g.int8('word_embeddings_q', [config.vocab_size, H], q), 'input_ids'],
      [{ name: 'axis', i: 0 }],
    );
    const scales = g.op(
      'Gather',
      [g.float('word_embeddings_scale', [config.vocab_size, 1], scale), 'input_ids'],
      [{ name: 'axis', i: 0 }],
    );
    word = g.op('Mul', [g.op('Cast', [rows], [{ name: 'to', i: DT.FLOAT }]), scales]);
  } else {
    word = g.op(
      'Gather',
      [g.float('word_embeddings', [config.vocab_size, H], wordTable), 'input_ids'],
      [{ name: 'axis', i: 0 }],
    );
  }
  const position = get('embeddings.position_embeddings.weight').data;
  const type0 = get('embeddings.token_type_embeddings.weight').data.subarray(0, H);
  const posType = new Float32Array(position.length);
  for (let i = 0; i < position.length; i++) posType[i] = position[i]! + type0[i % H]!;
  const posTable = g.float('position_embeddings', [config.max_position_embeddings, H], posType);
  const seqLen = g.op('Slice', [
    g.op('Shape', ['input_ids']),
    g.int64('const_1', [1]),
    g.int64('const_2', [2]),
  ]);
  const positions = g.op('Slice', [posTable, g.int64('const_0', [0]), seqLen, g.int64('axis_0', [0])]);
  let hidden = layerNorm(g.op('Add', [word, positions]), 'embeddings.LayerNorm');

  // The mask as float [B, S] (pooling); for attention, int32 [B, S] (fused) or an additive bias
  // [B, 1, 1, S]: 0 where attended, -10000 where padded (plain).
  const maskF = g.op('Cast', ['attention_mask'], [{ name: 'to', i: DT.FLOAT }]);
  const maskI32 = fused ? g.op('Cast', ['attention_mask'], [{ name: 'to', i: DT.INT32 }]) : '';
  const maskBias = fused
    ? ''
    : g.op('Unsqueeze', [
        g.op('Mul', [g.op('Sub', [g.scalar('one', 1), maskF]), g.scalar('mask_min', -10000)]),
        g.int64('axes_1_2', [1, 2]),
      ]);
  const headsShape = fused ? '' : g.int64('heads_shape', [0, 0, heads, headSize]);
  const hiddenShape = fused ? '' : g.int64('hidden_shape', [0, 0, H]);
  const qkScale = 1 / Math.sqrt(headSize);

  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}`;
    // Q, K and V as one [H, 3H] projection, split after.
    const qkvW = new Float32Array(H * 3 * H);
    const qkvB = new Float32Array(3 * H);
    ['query', 'key', 'value'].forEach((part, k) => {
      const w = transpose(get(`${p}.attention.self.${part}.weight`));
      const b = get(`${p}.attention.self.${part}.bias`).data;
      const s = part === 'query' ? qkScale : 1;
      for (let r = 0; r < H; r++) for (let c = 0; c < H; c++) qkvW[r * 3 * H + k * H + c] = w[r * H + c]! * s;
      for (let c = 0; c < H; c++) qkvB[k * H + c] = b[c]! * s;
    });
    const qkv = dense(hidden, `${p}.attention.qkv`, qkvW, qkvB, H, 3 * H);
    const [q, k, v] = g.node(
      'Split',
      [qkv, g.int64(`${p}.split`, [H, H, H])],
      [{ name: 'axis', i: -1 }],
      3,
    ) as [string, string, string];
    let merged: string;
    if (fused) {
      // Q is already scaled by 1/sqrt(head size), hence scale 1.
      merged = g.op(
        'MultiHeadAttention',
        [q, k, v, '', maskI32],
        [
          { name: 'num_heads', i: heads },
          { name: 'scale', f: 1 },
          { name: 'mask_filter_value', f: -10000 },
        ],
        'com.microsoft',
      );
    } else {
      const toHeads = (x: string, perm: number[]) =>
        g.op('Transpose', [g.op('Reshape', [x, headsShape])], [{ name: 'perm', ints: perm }]);
      const scores = g.op('Add', [
        g.op('MatMul', [toHeads(q, [0, 2, 1, 3]), toHeads(k, [0, 2, 3, 1])]),
        maskBias,
      ]);
      const probs = g.op('Softmax', [scores], [{ name: 'axis', i: -1 }]);
      const context = g.op('MatMul', [probs, toHeads(v, [0, 2, 1, 3])]);
      merged = g.op('Reshape', [
        g.op('Transpose', [context], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
        hiddenShape,
      ]);
    }
    const attnOut = dense(
      merged,
      `${p}.attention.output.dense`,
      transpose(get(`${p}.attention.output.dense.weight`)),
      get(`${p}.attention.output.dense.bias`).data,
      H,
      H,
    );
    hidden = addNorm(attnOut, hidden, `${p}.attention.output.LayerNorm`);

    const I = config.intermediate_size;
    const inter = dense(
      hidden,
      `${p}.intermediate.dense`,
      transpose(get(`${p}.intermediate.dense.weight`)),
      get(`${p}.intermediate.dense.bias`).data,
      H,
      I,
    );
    // Exact GELU: x * 0.5 * (1 + erf(x / sqrt 2)); ONNX Runtime fuses this into one Gelu.
    const erf = g.op('Erf', [g.op('Div', [inter, g.scalar(`${p}.sqrt2`, Math.SQRT2)])]);
    const gelu = g.op('Mul', [
      g.op('Mul', [inter, g.op('Add', [erf, g.scalar(`${p}.gelu_one`, 1)])]),
      g.scalar(`${p}.gelu_half`, 0.5),
    ]);
    const out = dense(
      gelu,
      `${p}.output.dense`,
      transpose(get(`${p}.output.dense.weight`)),
      get(`${p}.output.dense.bias`).data,
      I,
      H,
    );
    hidden = addNorm(out, hidden, `${p}.output.LayerNorm`);
  }

  // Mean pooling over the mask, then L2 normalisation (eps 1e-12 as torch's F.normalize).
  const mask3 = g.op('Unsqueeze', [maskF, g.int64('axes_2', [2])]);
  const summed = g.op(
    'ReduceSum',
    [g.op('Mul', [hidden, mask3]), g.int64('axes_1', [1])],
    [{ name: 'keepdims', i: 0 }],
  );
  const counts = g.op('Max', [
    g.op('ReduceSum', [mask3, g.int64('axes_1b', [1])], [{ name: 'keepdims', i: 0 }]),
    g.scalar('count_min', 1e-9),
  ]);
  const mean = g.op('Div', [summed, counts]);
  const norm = g.op('Max', [
    g.op(
      'ReduceL2',
      [mean],
      [
        { name: 'axes', ints: [1] },
        { name: 'keepdims', i: 1 },
      ],
    ),
    g.scalar('norm_min', 1e-12),
  ]);
  g.nodes.push(
    onnx.NodeProto.create({ opType: 'Div', name: 'normalise', input: [mean, norm], output: ['embeddings'] }),
  );

  const dims = (...names: string[]) => ({
    dim: names.map((n) => (n === 'hidden' ? { dimValue: H } : { dimParam: n })),
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: '@lore/minilm-onnx',
    opsetImport: [
      { domain: '', version: 17 },
      { domain: 'com.microsoft', version: 1 },
    ],
    graph: onnx.GraphProto.create({
      name: 'minilm',
      node: g.nodes,
      initializer: g.initializers,
      input: ['input_ids', 'attention_mask'].map((name) =>
        onnx.ValueInfoProto.create({
          name,
          type: { tensorType: { elemType: DT.INT64, shape: dims('batch', 'sequence') } },
        }),
      ),
      output: [
        onnx.ValueInfoProto.create({
          name: 'embeddings',
          type: { tensorType: { elemType: DT.FLOAT, shape: dims('batch', 'hidden') } },
        }),
      ],
    }),
  });
  return onnx.ModelProto.encode(model).finish();
}
