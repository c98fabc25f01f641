// Builds .vtx files byte by byte (docs/FORMAT.md, version 1, or 4 for exact float sums) with correct checksums but any
// content a hostile writer might choose: values DuckDB could never produce, statistics that
// contradict themselves, impossible sizes. Checksums only prove the bytes are the ones written,
// so these files get past them and test what the reader does next.

export const TYPE = {
  BOOLEAN: 1, TINYINT: 2, SMALLINT: 3, INTEGER: 4, BIGINT: 5, HUGEINT: 6, UTINYINT: 7, USMALLINT: 8, UINTEGER: 9,
  UBIGINT: 10, UHUGEINT: 11, FLOAT: 12, DOUBLE: 13, DECIMAL: 14, VARCHAR: 15, BLOB: 16, DATE: 17, TIME: 18,
  TIMESTAMP: 19, TIMESTAMP_S: 20, TIMESTAMP_MS: 21, TIMESTAMP_NS: 22, TIMESTAMPTZ: 23, UUID: 24, INTERVAL: 25, TIMETZ: 26,
  TIME_NS: 33, GEOMETRY: 34,
} as const;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32c(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export class Bytes {
  private parts: number[] = [];
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u32(v: number): this {
    for (let k = 0; k < 4; k++) this.u8(v >>> (8 * k));
    return this;
  }
  /** Little-endian integer of `width` bytes (two's complement for negatives). */
  int(v: bigint, width: number): this {
    let x = BigInt.asUintN(width * 8, v);
    for (let k = 0; k < width; k++) {
      this.u8(Number(x & 0xffn));
      x >>= 8n;
    }
    return this;
  }
  f64(v: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    return this.raw(b);
  }
  f32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    return this.raw(b);
  }
  varint(v: bigint | number): this {
    let x = BigInt(v);
    while (x >= 0x80n) {
      this.u8(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    return this.u8(Number(x));
  }
  raw(b: Uint8Array | number[]): this {
    for (const x of b) this.u8(x);
    return this;
  }
  str(s: string | Uint8Array): this {
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    return this.varint(b.length).raw(b);
  }
  get length(): number {
    return this.parts.length;
  }
  done(): Buffer {
    return Buffer.from(this.parts);
  }
}

export interface Stats {
  rows: number | bigint;
  nulls?: number;
  nans?: number;
  posInf?: number;
  negInf?: number;
  min?: Uint8Array;
  max?: Uint8Array;
  exact?: boolean; //! default true when min/max are given
  intSum?: bigint;
  floatSum?: number;
  /** Version 4: the exact float sum, sign and 32-bit words from word `low` (word k weighs 2^(32k - 1074)). */
  exactSum?: { negative?: boolean; low: number; words: number[] };
  /** Version 4: 64 HyperLogLog registers. */
  sketch?: number[];
  /** Version 4: the zone's distinct values, raw, bytewise ascending. */
  distinct?: Uint8Array[];
}

export interface Chunk {
  body: Uint8Array; //! the segment body (stored uncompressed)
  stats: Stats;
  encoding?: number;
}

export interface Column {
  name: string | Uint8Array;
  type: number;
  precision?: number;
  scale?: number;
  /** GEOMETRY (version 7): its coordinate reference system, '' for none. */
  crs?: string;
}

export function statsBytes(w: Bytes, s: Stats): void {
  w.varint(s.rows).varint(s.nulls ?? 0).varint(s.nans ?? 0).varint(s.posInf ?? 0).varint(s.negInf ?? 0);
  const hasMinMax = s.min !== undefined;
  const flags = (hasMinMax ? 1 : 0) | (hasMinMax && s.exact !== false ? 2 : 0) | (s.intSum !== undefined ? 4 : 0) |
    (s.floatSum !== undefined ? 8 : 0) | (s.exactSum !== undefined ? 16 : 0) | (s.sketch !== undefined ? 32 : 0) |
    (s.distinct !== undefined ? 64 : 0);
  w.u8(flags);
  if (hasMinMax) w.str(s.min!).str(s.max!);
  if (s.intSum !== undefined) w.int(s.intSum, 16);
  if (s.floatSum !== undefined) w.f64(s.floatSum);
  if (s.exactSum !== undefined) {
    w.varint(s.exactSum.words.length);
    if (s.exactSum.words.length > 0) {
      w.u8(s.exactSum.negative ? 1 : 0).varint(s.exactSum.low);
      for (const word of s.exactSum.words) w.u32(word);
    }
  }
  if (s.sketch !== undefined) w.raw(s.sketch);
  if (s.distinct !== undefined) {
    w.varint(s.distinct.length);
    for (const v of s.distinct) w.str(v);
  }
}

/**
 * A whole file: zones[z][c] is column c of zone z. `version`: the footer's format version;
 * `keyValue`: the version-5 key-value pairs (raw byte counts allowed to lie: `count`).
 */
export function forge(columns: Column[], zones: Array<{ rows: number | bigint; chunks: Chunk[] }>, version = 1, fingerprints: bigint[] = [],
  keyValue: { count?: number; pairs: Array<[Uint8Array, Uint8Array]> } = { pairs: [] }): Buffer {
  const data = new Bytes().raw(Buffer.from('VTX1'));
  const placed: Array<Array<{ offset: number; size: number; crc: number }>> = [];
  for (const z of zones) {
    placed.push(z.chunks.map((c) => {
      const offset = data.length;
      data.raw(c.body);
      return { offset, size: c.body.length, crc: crc32c(c.body) };
    }));
  }
  const f = new Bytes().varint(version).varint(columns.length);
  for (const c of columns) {
    f.str(c.name).u8(c.type).u8(c.precision ?? 0).u8(c.scale ?? 0);
    if (c.type === TYPE.GEOMETRY) f.str(c.crs ?? '');
  }
  f.varint(zones.length);
  zones.forEach((z, zi) => {
    f.varint(z.rows);
    z.chunks.forEach((c, ci) => {
      const p = placed[zi][ci];
      f.varint(p.offset).varint(p.size).varint(p.size).u8(0).u8(c.encoding ?? 0).u32(p.crc);
      statsBytes(f, c.stats);
    });
  });
  f.str('vtx-forge');
  if (version >= 4) {
    f.varint(fingerprints.length);
    for (const fp of fingerprints) f.int(fp, 8);
  }
  if (version >= 5) {
    f.varint(keyValue.count ?? keyValue.pairs.length);
    for (const [k, v] of keyValue.pairs) f.varint(k.length).raw(Buffer.from(k)).varint(v.length).raw(Buffer.from(v));
  }
  const footer = f.done();
  return Buffer.concat([data.done(), footer, new Bytes().u32(footer.length).u32(crc32c(footer)).raw(Buffer.from('VTX1')).done()]);
}

// ---- segment bodies -------------------------------------------------------------------

/** All valid, plain encoding, fixed-width little-endian values. */
export function plainFixed(values: bigint[], width: number): Uint8Array {
  const w = new Bytes().u8(0).u8(0);
  for (const v of values) w.int(v, width);
  return w.done();
}

/** All valid, constant encoding. */
export function constantFixed(value: bigint, width: number): Uint8Array {
  return new Bytes().u8(0).u8(1).int(value, width).done();
}

/** All valid, frame of reference + bit-packing: value = (ref + delta) XOR sign, truncated to the width. */
export function forFixed(ref: bigint, deltas: bigint[], bw: number): Uint8Array {
  const w = new Bytes().u8(0).u8(2).int(ref, 8);
  packed(w, deltas, bw);
  return w.done();
}

/** All valid, run-length: `values[k]` up to row `ends[k]` (exclusive). */
export function runsFixed(values: bigint[], ends: number[], width: number): Uint8Array {
  const w = new Bytes().u8(0).u8(3).varint(values.length);
  for (const v of values) w.int(v, width);
  for (const e of ends) w.u32(e);
  return w.done();
}

/** All valid, dictionary: `entries`, then one code per row. */
export function dictFixed(entries: bigint[], codes: number[], width: number): Uint8Array {
  const w = new Bytes().u8(0).u8(4).varint(entries.length);
  for (const v of entries) w.int(v, width);
  packed(w, codes.map(BigInt), 32);
  return w.done();
}

/** All valid, plain string block (lengths bit-packed at 32 bits). */
export function plainStrings(values: Uint8Array[]): Uint8Array {
  const w = new Bytes().u8(0).u8(0);
  packed(w, values.map((v) => BigInt(v.length)), 32);
  const total = values.reduce((s, v) => s + v.length, 0);
  w.varint(total);
  for (const v of values) w.raw(v);
  return w.done();
}

export function packed(w: Bytes, values: bigint[], bw: number): void {
  w.u8(bw);
  const words = Math.ceil((values.length * bw) / 64);
  const out = new Array<bigint>(words).fill(0n);
  values.forEach((v, i) => {
    const bit = BigInt(i * bw);
    const word = Number(bit / 64n);
    const off = bit % 64n;
    out[word] = BigInt.asUintN(64, out[word] | (v << off));
    if (off + BigInt(bw) > 64n) out[word + 1] |= v >> (64n - off);
  });
  for (const x of out) w.int(x, 8);
}

export function le(v: bigint, width: number): Uint8Array {
  return new Bytes().int(v, width).done();
}

/** Integer stats for values of a signed/unsigned type, computed honestly. */
export function intStats(values: bigint[], width: number): Stats {
  const min = values.reduce((a, b) => (b < a ? b : a));
  const max = values.reduce((a, b) => (b > a ? b : a));
  return { rows: values.length, min: le(min, width), max: le(max, width), intSum: values.reduce((a, b) => a + b, 0n) };
}
