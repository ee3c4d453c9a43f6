/**
 * A static embedding model (model2vec's kind, as the bundled potion-base-2M is packaged): an
 * ONNX graph that only looks each token up in one matrix and zeroes the padding,
 *
 *   Gather(matrix, input_ids) · Unsqueeze(Cast(attention_mask))  →  last_hidden_state
 *
 * Read here, such a model needs no inference runtime: a text's vector is the mean of its
 * tokens' rows, computed as the runtime's output followed by the embedder's mean pooling would
 * compute it. `readStaticLookup` answers null for any other graph, which then goes through
 * onnxruntime. Only the few protobuf fields of ONNX that identify the graph are read.
 */

/** ONNX TensorProto data types. */
const FLOAT = 1;
const INT64 = 7;

export interface StaticLookup {
  /** Rows of `dims` float32 values, one per token id. */
  matrix: Float32Array;
  rows: number;
  dims: number;
}

/** Reads base-128 varints from `b`, starting at `pos`, up to `end`. */
class Varints {
  constructor(
    private readonly b: Uint8Array,
    public pos: number,
    private readonly end: number,
  ) {}

  next(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.b[this.pos++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  }

  get done(): boolean {
    return this.pos >= this.end;
  }
}

/** The message's fields in order: a varint's value, or the byte range of a length-delimited field. */
function* fields(b: Uint8Array, start: number, end: number): Generator<{ field: number; value?: number; start: number; end: number }> {
  const r = new Varints(b, start, end);
  while (!r.done) {
    const key = r.next();
    const [field, wire] = [Math.floor(key / 8), key % 8];
    if (wire === 0) {
      const value = r.next();
      yield { field, value, start: r.pos, end: r.pos };
    } else if (wire === 2) {
      const len = r.next();
      if (r.pos + len > end) throw new Error('truncated field');
      yield { field, start: r.pos, end: r.pos + len };
      r.pos += len;
    } else if (wire === 5 || wire === 1) {
      r.pos += wire === 5 ? 4 : 8;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
}

interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integer attributes by name. */
  ints: Map<string, number>;
}

interface Initializer {
  name: string;
  type: number;
  dims: number[];
  raw: Uint8Array | null;
}

const text = (b: Uint8Array, f: { start: number; end: number }) => Buffer.from(b.buffer, b.byteOffset + f.start, f.end - f.start).toString('utf8');

function readNode(b: Uint8Array, start: number, end: number): Node {
  const node: Node = { op: '', inputs: [], outputs: [], ints: new Map() };
  for (const f of fields(b, start, end)) {
    if (f.field === 1) node.inputs.push(text(b, f));
    else if (f.field === 2) node.outputs.push(text(b, f));
    else if (f.field === 4) node.op = text(b, f);
    else if (f.field === 5) {
      // AttributeProto: name (1), i (3).
      let name = '';
      let value: number | undefined;
      for (const a of fields(b, f.start, f.end)) {
        if (a.field === 1) name = text(b, a);
        else if (a.field === 3) value = a.value;
      }
      if (value !== undefined) node.ints.set(name, value);
    }
  }
  return node;
}

function readInitializer(b: Uint8Array, start: number, end: number): Initializer {
  const t: Initializer = { name: '', type: 0, dims: [], raw: null };
  for (const f of fields(b, start, end)) {
    if (f.field === 1) {
      if (f.value !== undefined) t.dims.push(f.value);
      else for (const packed = new Varints(b, f.start, f.end); !packed.done; ) t.dims.push(packed.next());
    } else if (f.field === 2) t.type = f.value ?? 0;
    else if (f.field === 8) t.name = text(b, f);
    else if (f.field === 9) t.raw = b.subarray(f.start, f.end);
  }
  return t;
}

/** The matrix of a static lookup graph in `onnx` (the file's bytes), or null for any other model. */
export function readStaticLookup(onnx: Uint8Array): StaticLookup | null {
  try {
    const nodes: Node[] = [];
    const inits = new Map<string, Initializer>();
    const outputs: string[] = [];
    for (const m of fields(onnx, 0, onnx.length)) {
      if (m.field !== 7) continue;
      for (const g of fields(onnx, m.start, m.end)) {
        if (g.field === 1) nodes.push(readNode(onnx, g.start, g.end));
        else if (g.field === 5) {
          const init = readInitializer(onnx, g.start, g.end);
          inits.set(init.name, init);
        } else if (g.field === 12) {
          for (const o of fields(onnx, g.start, g.end)) if (o.field === 1) outputs.push(text(onnx, o));
        }
      }
    }
    if (nodes.map((n) => n.op).join(' ') !== 'Gather Cast Unsqueeze Mul' || outputs.join(' ') !== 'last_hidden_state') return null;
    const [gather, cast, unsqueeze, mul] = nodes as [Node, Node, Node, Node];
    const matrix = inits.get(gather.inputs[0] ?? '');
    const axes = inits.get(unsqueeze.inputs[1] ?? '');
    const wired =
      gather.inputs[1] === 'input_ids' &&
      (gather.ints.get('axis') ?? 0) === 0 &&
      cast.inputs[0] === 'attention_mask' &&
      cast.ints.get('to') === FLOAT &&
      unsqueeze.inputs[0] === cast.outputs[0] &&
      mul.inputs.length === 2 &&
      mul.inputs.includes(gather.outputs[0]!) &&
      mul.inputs.includes(unsqueeze.outputs[0]!) &&
      mul.outputs[0] === 'last_hidden_state';
    // The mask must become the last axis of [texts, tokens, 1].
    const axis = axes?.type === INT64 && axes.raw?.length === 8 ? Number(Buffer.from(axes.raw).readBigInt64LE(0)) : null;
    if (!wired || (axis !== 2 && axis !== -1) || !matrix || matrix.type !== FLOAT || matrix.dims.length !== 2 || !matrix.raw) return null;
    const [rows, dims] = matrix.dims as [number, number];
    if (matrix.raw.length !== rows * dims * 4) return null;
    // Copied: the field's offset in the file need not be aligned for a Float32Array.
    return { matrix: new Float32Array(Uint8Array.from(matrix.raw).buffer), rows, dims };
  } catch {
    return null;
  }
}

/**
 * Each text's vector from its token ids (each below `rows`): the mean of their rows, summed in
 * float64 in token order, as the embedder pools the runtime's output. One dimension at a time
 * over the tokens, its sum in a register: summing rows into an array of sums stored each
 * addition, slower for the same sums to the last bit.
 */
export function lookupMeans(model: StaticLookup, texts: readonly number[][]): (Float32Array | null)[] {
  const { matrix, dims } = model;
  return texts.map((ids) => {
    const n = ids.length;
    if (n === 0) return null;
    const rows = new Int32Array(n);
    for (let t = 0; t < n; t++) rows[t] = ids[t]! * dims;
    const v = new Float32Array(dims);
    for (let d = 0; d < dims; d++) {
      let sum = 0;
      for (let t = 0; t < n; t++) sum += matrix[rows[t]! + d]!;
      v[d] = sum / n;
    }
    return v;
  });
}
