/**
 * Byte codes of vectors (one signed byte per dimension) kept in WebAssembly memory, and their
 * dot products with a query by 128-bit SIMD: eight dimensions a step (`i32x4.dot_i16x8_s`),
 * several times the speed of the same loop in JavaScript. The query is taken as 16-bit integers, scaled so that no sum can overflow
 * 32 bits; the products are exact, and the query's rounding moves a similarity by less than 1e-4.
 *
 * The module is assembled here from its instructions (listed as in the text format, with
 * the binary opcodes of the WebAssembly 2.0 specification), so nothing is built or downloaded.
 */

// ---- the module, as bytes

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  /** if with an i32 result, else, end. */
  ifI32: [0x04, 0x7f],
  else: [0x05],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  localGet: (i: number) => [0x20, i],
  localSet: (i: number) => [0x21, i],
  i32Const: (v: number) => [0x41, ...sleb(v)],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32Shl: [0x74],
  i32GeU: [0x4f],
  /** i32.load / i32.store with 4-byte alignment, offset 0. */
  i32Load: [0x28, 2, 0],
  i32Store: [0x36, 2, 0],
  /** v128.load (alignment 1 byte: codes and queries need no alignment), offset 0. */
  v128Load: [0xfd, 0x00, 0, 0],
  /** v128.load8x8_s: eight signed bytes widened to eight 16-bit lanes. */
  v128Load8x8S: [0xfd, 0x01, 0, 0],
  v128Zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  i32x4ExtractLane: (lane: number) => [0xfd, 0x1b, lane],
  i32x4Add: [0xfd, 0xae, 0x01],
  i32x4DotI16x8S: [0xfd, 0xba, 0x01],
};

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];

/**
 * The body of `dot(codes, rows, stride, query, out, slots)`: for each j < rows, the row `r` =
 * j (slots = 0) or slots[j], out[j] = Σ codes[r·stride + d] · query[d] over d < stride, stride
 * a multiple of 8. Locals 6-8: j, d, the row's address; 9: the accumulator.
 */
function dotBody(): number[] {
  const [codes, rows, stride, query, out, slots, j, d, row, acc] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  return [
    ...op.block, ...op.loop,
    ...op.localGet(j), ...op.localGet(rows), ...op.i32GeU, ...op.brIf(1),
    // The row's address: codes + (slots ? slots[j] : j) · stride.
    ...op.localGet(slots), ...op.ifI32,
    ...op.localGet(slots), ...op.localGet(j), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.i32Load,
    ...op.else,
    ...op.localGet(j),
    ...op.end,
    ...op.localGet(stride), ...op.i32Mul, ...op.localGet(codes), ...op.i32Add, ...op.localSet(row),
    ...op.v128Zero, ...op.localSet(acc),
    ...op.i32Const(0), ...op.localSet(d),
    ...op.block, ...op.loop,
    ...op.localGet(d), ...op.localGet(stride), ...op.i32GeU, ...op.brIf(1),
    ...op.localGet(acc),
    ...op.localGet(row), ...op.localGet(d), ...op.i32Add, ...op.v128Load8x8S,
    ...op.localGet(query), ...op.localGet(d), ...op.i32Const(1), ...op.i32Shl, ...op.i32Add, ...op.v128Load,
    ...op.i32x4DotI16x8S, ...op.i32x4Add, ...op.localSet(acc),
    ...op.localGet(d), ...op.i32Const(8), ...op.i32Add, ...op.localSet(d),
    ...op.br(0),
    ...op.end, ...op.end,
    // out[j] = the four lanes' sum.
    ...op.localGet(out), ...op.localGet(j), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add,
    ...op.localGet(acc), ...op.i32x4ExtractLane(0),
    ...op.localGet(acc), ...op.i32x4ExtractLane(1), ...op.i32Add,
    ...op.localGet(acc), ...op.i32x4ExtractLane(2), ...op.i32Add,
    ...op.localGet(acc), ...op.i32x4ExtractLane(3), ...op.i32Add,
    ...op.i32Store,
    ...op.localGet(j), ...op.i32Const(1), ...op.i32Add, ...op.localSet(j),
    ...op.br(0),
    ...op.end, ...op.end,
  ];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const body = [...vec([[3, I32], [1, V128]]), ...dotBody(), ...op.end];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // Types: (i32 × 6) → ().
    ...section(1, vec([[0x60, ...vec(new Array(6).fill([I32])), 0]])),
    // Imports: env.memory, at least one page.
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
    // Functions: one, of type 0.
    ...section(3, vec([[0]])),
    // Exports: "dot", function 0.
    ...section(7, vec([[...name('dot'), 0x00, 0]])),
    // Code.
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
}

/** The WebAssembly API used here (Node's own types do not declare the global). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number }) => WasmMemory;
      Module: new (bytes: Uint8Array<ArrayBuffer>) => object;
      Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
    };
  }
).WebAssembly;

let compiled: object | undefined;

type DotFunction = (codes: number, rows: number, stride: number, query: number, out: number, slots: number) => void;

// ---- the codes and their products

const PAGE = 65_536;
const INT32_MAX = 2 ** 31 - 1;

/** Rows of `dim` byte codes, each padded to a multiple of 8 with zeros, in WebAssembly memory. */
export class CodeRows {
  readonly stride: number;
  readonly #memory = new wasm.Memory({ initial: 1 });
  readonly #dot: DotFunction;
  #capacity = 0;
  #codes = new Int8Array(0);

  constructor(readonly dim: number) {
    this.stride = Math.ceil(dim / 8) * 8;
    compiled ??= new wasm.Module(moduleBytes());
    const instance = new wasm.Instance(compiled, { env: { memory: this.#memory } });
    this.#dot = instance.exports.dot as DotFunction;
  }

  /** Room for `rows` rows (the caller grows it in steps); what they hold stays. */
  reserve(rows: number): void {
    if (rows <= this.#capacity) return;
    this.#capacity = rows;
    this.#room(this.#capacity * this.stride);
  }

  /** The i-th row's codes (a view: read or write them, before the rows grow). */
  row(i: number): Int8Array {
    return this.#codes.subarray(i * this.stride, i * this.stride + this.dim);
  }

  /** Writes row i's codes (`dim` of them). */
  set(i: number, codes: Int8Array): void {
    this.#codes.set(codes, i * this.stride);
  }

  /** Copies row `from` over row `to`. */
  move(from: number, to: number): void {
    this.#codes.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
  }

  /**
   * `out[j]` = the dot product of row j (of the first `rows`), or of row `slots[j]`, with `query`
   * (unit length or less); the query's rounding to 16 bits moves it by less than 1e-4 × 127.
   */
  dot(query: Float32Array, rows: number, out: Float32Array, slots?: Int32Array): void {
    let max = 0;
    for (const x of query) max = Math.max(max, Math.abs(x));
    if (max === 0 || rows === 0) {
      out.fill(0, 0, rows);
      return;
    }
    // |Σ code · q| ≤ 128 · stride · max|q| must stay within 32 bits.
    const scale = Math.min(32_767, Math.floor(INT32_MAX / (128 * this.stride))) / max;
    const codesEnd = this.#capacity * this.stride;
    const queryAt = align(codesEnd);
    const outAt = align(queryAt + this.stride * 2);
    const slotsAt = align(outAt + rows * 4);
    this.#room(slotsAt + (slots ? rows * 4 : 0));
    const buffer = this.#memory.buffer;
    const q16 = new Int16Array(buffer, queryAt, this.stride);
    for (let d = 0; d < this.dim; d++) q16[d] = Math.round(query[d]! * scale);
    // Zero past the dimension: a row's padding may hold an earlier call's scratch.
    q16.fill(0, this.dim);
    if (slots) new Int32Array(buffer, slotsAt, rows).set(slots.subarray(0, rows));
    this.#dot(0, rows, this.stride, queryAt, outAt, slots ? slotsAt : 0);
    const sums = new Int32Array(buffer, outAt, rows);
    for (let j = 0; j < rows; j++) out[j] = sums[j]! / scale;
  }

  /** Memory of at least `bytes`; the codes' view is made again when it moved or grew (growing detaches it). */
  #room(bytes: number): void {
    const have = this.#memory.buffer.byteLength;
    if (bytes > have) this.#memory.grow(Math.ceil((bytes - have) / PAGE));
    const length = this.#capacity * this.stride;
    if (this.#codes.buffer !== this.#memory.buffer || this.#codes.length !== length) this.#codes = new Int8Array(this.#memory.buffer, 0, length);
  }
}

const align = (n: number) => Math.ceil(n / 16) * 16;
