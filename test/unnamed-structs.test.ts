// STRUCTs without field names (DuckDB's row(...)), stored since format version 6: they come back
// unnamed, alone and nested, and are read, filtered and aggregated (pushed and not) exactly as the
// DuckDB table answers, as Parquet stores them. Older versions' files cannot declare one.
import type { DuckDBConnection } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, isPushed, openDb, rows, scalar, sqlString, tempDir } from './helpers';
import { crc32c } from './workers/vtx-forge';

const dir = tempDir('vtx-unnamed-');
const file = join(dir, 't.vtx');
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ conn } = await openDb());
  // A view: DuckDB cannot create a table with an unnamed STRUCT column, only compute one.
  await conn.run(`CREATE VIEW t AS SELECT i,
      CASE WHEN i % 7 = 0 THEN NULL ELSE row(i % 100, CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 13) END) END AS r,
      {'a': row(i * 2, [i, i + 1]), 'b': i % 3} AS named,
      [row(i, 'x'), row(i + 1, 'y')] AS list_of_rows
    FROM range(3000) t(i)`);
  await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 500)`);
});

describe('unnamed STRUCTs', () => {
  it('come back unnamed, with every value, in a version 6 file', async () => {
    const scan = `vortex_scan(${sqlString(file)})`;
    expect(await answerText(conn, `DESCRIBE SELECT * FROM ${scan}`)).toBe(await answerText(conn, 'DESCRIBE SELECT * FROM t'));
    expect(String((await rows(conn, `SELECT typeof(r) FROM ${scan} LIMIT 1`))[0][0])).toBe('STRUCT(BIGINT, VARCHAR)');
    const all = (from: string) => `SELECT i, r::VARCHAR, named::VARCHAR, list_of_rows::VARCHAR FROM ${from} ORDER BY i`;
    expect(await answerText(conn, all(scan))).toBe(await answerText(conn, all('t')));
    expect(await scalar(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(file)})`)).toBe(6);
  });

  it('filter and aggregate by field position as the DuckDB table does, pushed and not', async () => {
    const scan = `vortex_scan(${sqlString(file)})`;
    const queries = [
      (f: string) => `SELECT sum(r[1]), min(r[2]), max(r[2]), count(r), count(r[2]) FROM ${f}`,
      (f: string) => `SELECT count(*), sum(i) FROM ${f} WHERE r[1] BETWEEN 10 AND 20`,
      (f: string) => `SELECT i FROM ${f} WHERE r[2] = 'v3' AND r[1] > 50 ORDER BY i`,
      (f: string) => `SELECT r[1] % 4 AS k, count(*), max(named.a[1]) FROM ${f} GROUP BY k ORDER BY k`,
      (f: string) => `SELECT count(*) FROM ${f} WHERE r IS NULL`,
      (f: string) => `SELECT i FROM ${f} WHERE r = row(42, 'v3') ORDER BY i`,
    ];
    for (const q of queries) {
      const expected = await answerText(conn, q('t'));
      await conn.run('SET vortex_pushdown = true');
      expect(await answerText(conn, q(scan)), q('F')).toBe(expected);
      await conn.run('SET vortex_pushdown = false');
      expect(await answerText(conn, q(scan)), `${q('F')} (pushdown off)`).toBe(expected);
    }
    await conn.run('SET vortex_pushdown = true');
    expect(await isPushed(conn, `SELECT sum(r[1]), count(r) FROM ${scan}`)).toBe(true);
  });

  it('read as Parquet reads them', async () => {
    const parquet = join(dir, 't.parquet');
    await conn.run(`COPY t TO ${sqlString(parquet)} (FORMAT parquet)`);
    const q = (from: string) => `SELECT typeof(r), typeof(list_of_rows), r::VARCHAR FROM ${from} ORDER BY i LIMIT 20`;
    expect(await answerText(conn, q(`vortex_scan(${sqlString(file)})`))).toBe(await answerText(conn, q(`read_parquet(${sqlString(parquet)})`)));
  });

  it('are refused in a file that declares an older version', async () => {
    // The same file with its footer's version lowered to 5 (and the footer's checksum redone).
    const bytes = Buffer.from(readFileSync(file));
    const footerLength = bytes.readUInt32LE(bytes.length - 12);
    const start = bytes.length - 12 - footerLength;
    expect(bytes[start]).toBe(6);
    bytes[start] = 5;
    bytes.writeUInt32LE(crc32c(bytes.subarray(start, start + footerLength)), bytes.length - 8);
    const old = join(dir, 'v5.vtx');
    writeFileSync(old, bytes);
    const msg = (await answerText(conn, `SELECT * FROM vortex_scan(${sqlString(old)})`)).split('\n')[0];
    expect(msg).toContain(`vortex: file "${old}" is not a valid .vtx file: `);
    expect(msg).toMatch(/a version 5 file declares a STRUCT without field names/);
  });
});
