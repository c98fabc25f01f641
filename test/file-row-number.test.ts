// vortex_scan(..., file_row_number := true) against read_parquet's option of that name, on the same
// data written in both formats: a BIGINT column after the files' columns and before `filename` and
// the partition keys, numbering each file's rows from 0, in projections, filters, groups and with
// union_by_name; pushdown on and off.
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, explain, openDb, parquetAndVortex, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-file-row-number-');
let conn: DuckDBConnection;

/** `where` names the files with FORMAT and EXT in place of the format's directory prefix and extension. */
function both(where: string, options: string, query: (from: string) => string): Promise<{ parquet: string; on: string; off: string }> {
  return parquetAndVortex(conn, dir, (format, ext) => `${dir}/${where.replace('FORMAT', format).replace('EXT', ext)}`, options, query);
}

beforeAll(async () => {
  ({ conn } = await openDb());
  for (const [format, ext] of [['parquet', 'parquet'], ['vortex', 'vtx']]) {
    // Several zones and row groups per file, partitioned, with NULLs and strings.
    await conn.run(`COPY (SELECT i % 3 AS p, i AS x, CASE WHEN i % 5 = 0 THEN NULL ELSE 's' || (i % 11) END AS s FROM range(25000) r(i))
      TO ${sqlString(`${dir}/${format}-parts`)} (FORMAT ${format}, PARTITION_BY (p), ROW_GROUP_SIZE 2048)`);
    // Two files whose schemas differ, for union_by_name.
    await conn.run(`COPY (SELECT i AS x FROM range(3000) r(i)) TO ${sqlString(`${dir}/${format}-mixed-a.${ext}`)} (FORMAT ${format}, ROW_GROUP_SIZE 2048)`);
    await conn.run(`COPY (SELECT i AS x, i * 2 AS y FROM range(1000) r(i)) TO ${sqlString(`${dir}/${format}-mixed-b.${ext}`)} (FORMAT ${format})`);
    await conn.run(`COPY (SELECT 1 AS file_row_number) TO ${sqlString(`${dir}/${format}-taken.${ext}`)} (FORMAT ${format})`);
  }
});

describe('vortex_scan file_row_number := true, as read_parquet', () => {
  it('adds each row number within its file after the files columns, before filename and partition keys', async () => {
    for (const options of [', file_row_number = true', ', file_row_number = true, filename = true', ', file_row_number = true, hive_partitioning = false',
      ", file_row_number = 'yes'", ', file_row_number = true, union_by_name = true']) {
      for (const query of [
        (from: string) => `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${from})`,
        (from: string) => `SELECT * EXCLUDE (s) FROM ${from} ORDER BY x LIMIT 5 OFFSET 4000`,
        (from: string) => `SELECT count(*), min(file_row_number), max(file_row_number), sum(file_row_number), sum(x) FROM ${from}`,
        (from: string) => `SELECT count(*), sum(x), count(s) FROM ${from} WHERE file_row_number BETWEEN 2040 AND 2100`,
        (from: string) => `SELECT count(*) FROM ${from} WHERE file_row_number IN (0, 4095, 4096) OR s = 's3'`,
        (from: string) => `SELECT file_row_number, x FROM ${from} WHERE x % 3 = 2 ORDER BY file_row_number DESC, x LIMIT 3`,
        (from: string) => `SELECT count(*), max(x), count(DISTINCT s) FROM ${from} WHERE x > 100`,
        (from: string) => `SELECT x % 3, bool_and(file_row_number = x // 3), count(*) FROM ${from} GROUP BY ALL ORDER BY ALL`,
      ]) {
        const r = await both('FORMAT-parts/**/*.EXT', options, query);
        expect(r.parquet.startsWith('error:'), `${options}: ${query('F')}: ${r.parquet}`).toBe(false);
        expect(r.on, `${options}: ${query('F')}`).toBe(r.parquet);
        expect(r.off, `${options}: ${query('F')}`).toBe(r.parquet);
      }
    }
  });

  it('numbers the rows of files with different schemas read by name', async () => {
    // The one difference: read_parquet unites each file's columns with file_row_number among them,
    // so it lands after the first file's columns (here between x and y); vortex_scan puts it after
    // all of them, as when the schemas are equal. Compared by name.
    for (const query of [
      (from: string) => `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${from}) ORDER BY column_name`,
      (from: string) => `SELECT y IS NULL, count(*), max(file_row_number), sum(file_row_number) FROM ${from} GROUP BY ALL ORDER BY ALL`,
      (from: string) => `SELECT x, y, file_row_number FROM ${from} WHERE file_row_number = 999 ORDER BY ALL`,
    ]) {
      const r = await both('FORMAT-mixed-*.EXT', ', file_row_number = true, union_by_name = true', query);
      expect(r.on, query('F')).toBe(r.parquet);
      expect(r.off, query('F')).toBe(r.parquet);
    }
  });

  it('leaves the column out when false, and refuses NULL', async () => {
    for (const options of [', file_row_number = false', ', file_row_number = NULL']) {
      const r = await both('FORMAT-mixed-a.EXT', options, (from) => `SELECT * FROM ${from} ORDER BY x LIMIT 2`);
      expect(r.on, options).toBe(r.parquet);
      expect(r.off, options).toBe(r.parquet);
    }
  });

  it('refuses files that have a column of that name, naming the file', async () => {
    const from = `vortex_scan(${sqlString(`${dir}/vortex-taken.vtx`)}, file_row_number = true)`;
    expect(await answerText(conn, `SELECT * FROM ${from}`)).toMatch(/^error: Binder Error: vortex_scan: the files have a column named file_row_number.*vortex-taken\.vtx/);
    expect(await answerText(conn, `SELECT * FROM read_parquet(${sqlString(`${dir}/parquet-taken.parquet`)}, file_row_number = true)`)).toMatch(/^error: Binder Error/);
  });

  it('leaves aggregates over such a scan to DuckDB and says why', async () => {
    const from = `vortex_scan(${sqlString(`${dir}/vortex-mixed-a.vtx`)}, file_row_number = true)`;
    expect(await explain(conn, `SELECT count(*), max(x) FROM ${from}`)).toContain('file_row_number := true');
    expect(await explain(conn, `SELECT count(*), max(x) FROM vortex_scan(${sqlString(`${dir}/vortex-mixed-a.vtx`)})`)).not.toContain('file_row_number := true');
  });
});
