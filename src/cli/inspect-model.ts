import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../sql';
import { fileSize } from './paths';

/** One column chunk of one zone, as vortex_metadata reports it. */
export interface ChunkInfo {
  column: string;
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

export interface ColumnSummary {
  name: string;
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
}

const num = (v: unknown) => Number(v ?? 0);
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Reads schema, zones and statistics of a .vtx file (and verifies every segment unless `verify` is false). */
export async function inspectFile(conn: DuckDBConnection, file: string, verify: boolean): Promise<Inspection> {
  const path = sqlString(file);
  const schema = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM vortex_scan(${path})`)).getRowObjects();
  const rows = num((await conn.runAndReadAll(`SELECT count(*) FROM vortex_scan(${path})`)).getRows()[0][0]);
  const meta = (await conn.runAndReadAll(
    `SELECT * FROM vortex_metadata(${path}, verify := ${verify}) ORDER BY zone, column_index`,
  )).getRowObjects();

  const zones: ZoneInfo[] = [];
  for (const m of meta) {
    const zone = num(m.zone);
    if (zones.length === 0 || zones[zones.length - 1].zone !== zone) {
      zones.push({ zone, firstRow: num(m.first_row), rows: num(m.rows), chunks: [] });
    }
    zones[zones.length - 1].chunks.push({
      column: String(m.column_name),
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

  const columns: ColumnSummary[] = schema.map((s) => ({
    name: String(s.column_name), type: String(s.column_type), encodings: {}, codecs: {}, storedBytes: 0, rawBytes: 0, nulls: 0, nans: 0,
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
  };
}
