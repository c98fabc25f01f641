import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../sql';
import { fileSize } from './paths';

/**
 * One stream of one zone, as vortex_metadata reports it: a column's chunk, or for a nested
 * column each of its streams in pre-order (the column's own — validity, tags or lengths — then
 * its children's: `s`, `s.a`, `l.element`).
 */
export interface ChunkInfo {
  column: string;
  /** The stream's path; equal to `column` for the column's own stream. */
  stream: string;
  /** 0 for the column's own stream, 1 for its children, and so on. */
  depth: number;
  /** Values in this stream in this zone (a list's elements, not its rows). */
  values: number;
  type: string;
  encoding: string;
  codec: string;
  storedBytes: number;
  rawBytes: number;
  offset: number;
  nulls: number;
  nans: number;
  min: string | null;
  max: string | null;
  minMaxExact: boolean | null;
  /** 'ok', 'mismatch', or null when not verified. */
  checksum: string | null;
}

export interface ZoneInfo {
  zone: number;
  firstRow: number;
  rows: number;
  chunks: ChunkInfo[];
}

/** A column, or one stream of a nested column (`depth` > 0: shown as a tree under it). */
export interface ColumnSummary {
  name: string;
  depth: number;
  type: string;
  /** Encoding name → number of zones using it. */
  encodings: Record<string, number>;
  codecs: Record<string, number>;
  storedBytes: number;
  rawBytes: number;
  nulls: number;
  nans: number;
}

export interface Inspection {
  file: string;
  /** On disk, when the file is local. */
  sizeBytes: number | null;
  rows: number;
  zones: ZoneInfo[];
  columns: ColumnSummary[];
  checksums: { verified: boolean; segments: number; ok: number; mismatch: number };
  /** The pairs written with KV_METADATA, as text (bytes that are not UTF-8 as \xNN). */
  keyValue: Array<{ key: string; value: string }>;
}

/** UTF-8 text as it is; other bytes as DuckDB shows a BLOB's (\xNN). */
function bytesText(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return Array.from(bytes, (b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
  }
}

const num = (v: unknown) => Number(v ?? 0);
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Reads schema, zones and statistics of a .vtx file (and verifies every segment unless `verify` is false). */
export async function inspectFile(conn: DuckDBConnection, file: string, verify: boolean): Promise<Inspection> {
  const path = sqlString(file);
  const schema = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM vortex_scan(${path})`)).getRowObjects();
  const rows = num((await conn.runAndReadAll(`SELECT count(*) FROM vortex_scan(${path})`)).getRows()[0][0]);
  const meta = (await conn.runAndReadAll(
    // In the function's own order: zone by zone, each column's streams in pre-order.
    `SELECT * FROM vortex_metadata(${path}, verify := ${verify})`,
  )).getRowObjects();

  const zones: ZoneInfo[] = [];
  for (const m of meta) {
    const zone = num(m.zone);
    if (zones.length === 0 || zones[zones.length - 1].zone !== zone) {
      zones.push({ zone, firstRow: num(m.first_row), rows: num(m.rows), chunks: [] });
    }
    zones[zones.length - 1].chunks.push({
      column: String(m.column_name),
      stream: String(m.stream),
      depth: num(m.stream_depth),
      values: num(m.stream_values),
      type: String(m.column_type),
      encoding: String(m.encoding),
      codec: String(m.codec),
      storedBytes: num(m.stored_bytes),
      rawBytes: num(m.raw_bytes),
      offset: num(m.offset),
      nulls: num(m.null_count),
      nans: num(m.nan_count),
      min: text(m.min),
      max: text(m.max),
      minMaxExact: m.min_max_exact === null ? null : Boolean(m.min_max_exact),
      checksum: text(m.checksum),
    });
  }

  // Streams are the same in every zone; without zones, the schema's columns.
  const streams = zones.length
    ? zones[0].chunks.map((c) => ({ name: c.stream, depth: c.depth, type: c.type }))
    : schema.map((s) => ({ name: String(s.column_name), depth: 0, type: String(s.column_type) }));
  const columns: ColumnSummary[] = streams.map((s) => ({
    ...s, encodings: {}, codecs: {}, storedBytes: 0, rawBytes: 0, nulls: 0, nans: 0,
  }));
  for (const z of zones) {
    z.chunks.forEach((c, i) => {
      const col = columns[i];
      col.encodings[c.encoding] = (col.encodings[c.encoding] ?? 0) + 1;
      col.codecs[c.codec] = (col.codecs[c.codec] ?? 0) + 1;
      col.storedBytes += c.storedBytes;
      col.rawBytes += c.rawBytes;
      col.nulls += c.nulls;
      col.nans += c.nans;
    });
  }
  const chunks = zones.flatMap((z) => z.chunks);
  const pairs = (await conn.runAndReadAll(`SELECT hex(key), hex(value) FROM vortex_kv_metadata(${path})`)).getRows();
  return {
    file,
    sizeBytes: fileSize(file) ?? null,
    rows,
    zones,
    columns,
    checksums: {
      verified: verify,
      segments: chunks.length,
      ok: chunks.filter((c) => c.checksum === 'ok').length,
      mismatch: chunks.filter((c) => c.checksum === 'mismatch').length,
    },
    keyValue: pairs.map(([k, v]) => ({ key: bytesText(String(k)), value: bytesText(String(v)) })),
  };
}
