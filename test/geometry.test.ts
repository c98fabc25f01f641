// GEOMETRY (DuckDB 1.5), stored as its WKB with its coordinate reference system since format
// version 7, as DuckDB 1.5's Parquet writer stores it: written, read back with its type, counted
// from statistics, and aggregated, grouped and filtered by DuckDB exactly as over the table. DuckDB
// 1.4, which has no GEOMETRY, reads such a column as its WKB BLOB (as it reads GeoParquet without
// spatial). Older versions' files cannot declare it.
import type { DuckDBConnection } from '@duckdb/node-api';
import { version } from '@duckdb/node-api';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, isPushed, openDb, scalar, sqlString, tempDir } from './helpers';
import { forge, plainStrings, TYPE } from './workers/vtx-forge';

const dir = tempDir('vtx-geometry-');
const file = join(dir, 't.vtx');
const hasGeometry = !version().startsWith('v1.4');
let conn: DuckDBConnection;

/** WKB of POINT(x y), little-endian. */
function wkbPoint(x: number, y: number): Uint8Array {
  const b = Buffer.alloc(21);
  b.writeUInt8(1, 0);
  b.writeUInt32LE(1, 1);
  b.writeDoubleLE(x, 5);
  b.writeDoubleLE(y, 13);
  return b;
}

beforeAll(async () => {
  ({ conn } = await openDb());
  if (!hasGeometry) return;
  // Points, lines, polygons, collections, empty geometries, Z and M coordinates, NULLs and
  // repeats; one column with a CRS, one without.
  await conn.run(`CREATE TABLE t AS SELECT i, i % 4 AS k,
      CASE WHEN i % 7 = 0 THEN NULL
           WHEN i % 3 = 0 THEN ('POINT(' || i || ' ' || (i * 2) || ')')::GEOMETRY('OGC:CRS84')
           WHEN i % 11 = 0 THEN 'POINT EMPTY'::GEOMETRY('OGC:CRS84')
           WHEN i % 13 = 0 THEN 'GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 2 2))'::GEOMETRY('OGC:CRS84')
           ELSE ('LINESTRING(0 0, ' || (i % 50) || ' 1.5)')::GEOMETRY('OGC:CRS84') END AS g,
      CASE WHEN i % 5 = 0 THEN NULL
           WHEN i % 2 = 0 THEN 'POLYGON((0 0, 1 0, 1 1, 0 0))'::GEOMETRY
           ELSE ('POINT Z(' || i || ' 1 ' || (i % 9) || ')')::GEOMETRY END AS h
    FROM range(5000) r(i)`);
  await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 700)`);
});

describe.runIf(hasGeometry)('GEOMETRY on DuckDB 1.5', () => {
  const scan = () => `vortex_scan(${sqlString(file)})`;

  it('round-trips every value with its type and CRS, as Parquet does, in format version 7', async () => {
    const all = (from: string) => `SELECT i, g::VARCHAR, h::VARCHAR, typeof(g), typeof(h) FROM ${from} ORDER BY i`;
    expect(await answerText(conn, all(scan()))).toBe(await answerText(conn, all('t')));
    for (const exceptAll of [`SELECT * FROM ${scan()} EXCEPT ALL SELECT * FROM t`, `SELECT * FROM t EXCEPT ALL SELECT * FROM ${scan()}`]) {
      expect(await scalar(conn, `SELECT count(*) FROM (${exceptAll})`)).toBe(0n);
    }
    // The CRS as Parquet keeps it; a GEOMETRY without one stays without (Parquet reads it back as
    // OGC:CRS84, its format's default).
    const parquet = join(dir, 't.parquet');
    await conn.run(`COPY t TO ${sqlString(parquet)} (FORMAT parquet)`);
    const types = (from: string) => `SELECT DISTINCT typeof(g) FROM ${from}`;
    expect(await answerText(conn, types(scan()))).toBe(await answerText(conn, types(`read_parquet(${sqlString(parquet)})`)));
    expect(await answerText(conn, `SELECT DISTINCT typeof(g), typeof(h) FROM ${scan()}`)).toBe(`{"types":["VARCHAR","VARCHAR"],"rows":[["\\"GEOMETRY('OGC:CRS84')\\"","\\"GEOMETRY\\""]]}`);
    expect(await answerText(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(file)})`)).toContain('7');
    // A file without GEOMETRY stays readable by older readers.
    const other = join(dir, 'other.vtx');
    await conn.run(`COPY (SELECT i FROM t) TO ${sqlString(other)} (FORMAT vortex, SKETCHES false)`);
    expect(Number(await scalar(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(other)})`))).toBeLessThan(7);
    // Nested: a GEOMETRY inside a struct and a list keeps its type too.
    const nested = join(dir, 'nested.vtx');
    const q = (from: string) => `SELECT typeof(s), s::VARCHAR, l::VARCHAR FROM ${from} ORDER BY i`;
    await conn.run(`COPY (SELECT i, {'a': g, 'b': i} AS s, [h, h] AS l FROM t) TO ${sqlString(nested)} (FORMAT vortex, ROW_GROUP_SIZE 900)`);
    expect(await answerText(conn, q(`vortex_scan(${sqlString(nested)})`))).toBe(await answerText(conn, q(`(SELECT i, {'a': g, 'b': i} AS s, [h, h] AS l FROM t)`)));
  });

  it('aggregates, groups and filters as the DuckDB table does; count is pushed', async () => {
    const aggregates = ['count(g)', 'count(h)', 'min(g)::VARCHAR', 'max(h)::VARCHAR', 'count(DISTINCT g)', 'approx_count_distinct(h)'];
    for (const a of aggregates) {
      for (const tail of ['', ' WHERE i > 1234', ' GROUP BY k ORDER BY k']) {
        const q = (from: string) => `SELECT ${a} FROM ${from}${tail}`;
        const expected = await answerText(conn, q('t'));
        await conn.run('SET vortex_pushdown = true');
        expect(await answerText(conn, q(scan())), `${q('F')} (pushdown on)`).toBe(expected);
        await conn.run('SET vortex_pushdown = false');
        expect(await answerText(conn, q(scan())), `${q('F')} (pushdown off)`).toBe(expected);
      }
    }
    await conn.run('SET vortex_pushdown = true');
    expect(await isPushed(conn, `SELECT count(g) FROM ${scan()}`)).toBe(true);
    const grouped = (from: string) => `SELECT g::VARCHAR, count(*), count(h) FROM ${from} GROUP BY g ORDER BY 1 NULLS FIRST`;
    expect(await answerText(conn, grouped(scan()))).toBe(await answerText(conn, grouped('t')));
    for (const where of [
      `g = 'POINT(3 6)'::GEOMETRY('OGC:CRS84')`,
      `g > 'POINT(300 600)'::GEOMETRY('OGC:CRS84')`,
      `g IS NULL`,
      `h IN ('POLYGON((0 0, 1 0, 1 1, 0 0))'::GEOMETRY, 'POINT Z(1 1 1)'::GEOMETRY)`,
      `g::VARCHAR LIKE 'POINT EMPTY%'`,
    ]) {
      // Against the table's rows without its statistics: DuckDB 1.5 proves `h IN (...)` empty from
      // a table's (or a Parquet file's) GEOMETRY statistics, though 2,001 rows match (its own
      // `h = ...` finds them). The scan gives DuckDB no GEOMETRY statistics.
      const q = (from: string) => `SELECT i, g::VARCHAR FROM ${from} WHERE ${where} ORDER BY i`;
      const expected = await answerText(conn, q('(SELECT * FROM t LIMIT 1000000)'));
      expect(expected).not.toContain('"rows":[]');
      expect(await answerText(conn, q(scan())), where).toBe(expected);
    }
  });

  it('next to a file whose column is a BLOB, fails naming the file and the column, as read_parquet does', async () => {
    // DuckDB has no BLOB -> GEOMETRY cast: the combined type is GEOMETRY, which the BLOB file's
    // column cannot be read as.
    const u = join(dir, 'union');
    mkdirSync(u, { recursive: true });
    await conn.run(`COPY (SELECT 1 AS id, 'POINT(1 2)'::GEOMETRY AS g) TO ${sqlString(join(u, 'a.vtx'))} (FORMAT vortex)`);
    await conn.run(`COPY (SELECT 2 AS id, '\\x01'::BLOB AS g) TO ${sqlString(join(u, 'b.vtx'))} (FORMAT vortex)`);
    for (const options of ['', ', union_by_name = true']) {
      const msg = await answerText(conn, `SELECT id, g FROM vortex_scan(${sqlString(join(u, '*.vtx'))}${options}) ORDER BY id`);
      expect(msg).toMatch(/Conversion Error/);
      expect(msg).toContain(`column "g" of "${join(u, 'b.vtx')}" from BLOB to GEOMETRY`);
    }
    // Columns that cast are read from both files.
    expect(await answerText(conn, `SELECT id FROM vortex_scan(${sqlString(join(u, '*.vtx'))}) ORDER BY id`)).toContain('[["1"],["2"]]');
  });
});

describe('GEOMETRY in a forged file', () => {
  const column = [{ name: 'g', type: TYPE.GEOMETRY, crs: 'OGC:CRS84' }];
  const values = [wkbPoint(1, 2), wkbPoint(-3.5, 4)];
  const zones = [{ rows: 2, chunks: [{ body: plainStrings(values), stats: { rows: 2, min: values[1], max: values[0] } }] }];

  it('reads as GEOMETRY with its CRS on DuckDB 1.5, and as its WKB BLOB on 1.4', async () => {
    const path = join(dir, 'forged.vtx');
    writeFileSync(path, forge(column, zones, 7));
    if (hasGeometry) {
      expect(await answerText(conn, `SELECT typeof(g), g::VARCHAR FROM vortex_scan(${sqlString(path)})`))
        .toBe(await answerText(conn, `SELECT typeof(g), g::VARCHAR FROM (VALUES ('POINT(1 2)'::GEOMETRY('OGC:CRS84')), ('POINT(-3.5 4)'::GEOMETRY('OGC:CRS84'))) v(g)`));
    } else {
      expect(await answerText(conn, `SELECT typeof(g), g FROM vortex_scan(${sqlString(path)})`))
        .toBe(await answerText(conn, `SELECT 'BLOB', v FROM (VALUES (from_hex('${Buffer.from(values[0]).toString('hex')}')), (from_hex('${Buffer.from(values[1]).toString('hex')}'))) t(v)`));
    }
    expect(await scalar(conn, `SELECT count(g) FROM vortex_scan(${sqlString(path)})`)).toBe(2n);
  });

  it('is refused in a file older than version 7', async () => {
    const path = join(dir, 'forged-v6.vtx');
    writeFileSync(path, forge(column, zones, 6));
    const msg = (await answerText(conn, `SELECT * FROM vortex_scan(${sqlString(path)})`)).split('\n')[0];
    expect(msg).toContain(`vortex: file "${path}" is not a valid .vtx file: `);
    expect(msg).toMatch(/a version 6 file declares a GEOMETRY column/);
  });
});
