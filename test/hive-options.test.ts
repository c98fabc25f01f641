// vortex_scan's file options against read_parquet's on the same directory trees, written by the
// same COPY ... PARTITION_BY in each format: partition column types (detected, hive_types,
// hive_types_autocast), values, errors, a partition key that is also a column of the files
// (WRITE_PARTITION_COLUMNS, or a file that disagrees with its directory), and filename := 'name'.
import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, explain, isPushed, openDb, parquetAndVortex, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-hive-options-');
let conn: DuckDBConnection;

/** The same query over read_parquet and vortex_scan (pushdown on and off): answers and errors. */
function both(tree: string, options: string, query: (from: string) => string): Promise<{ parquet: string; on: string; off: string }> {
  return parquetAndVortex(conn, dir, (format, ext) => `${dir}/${format}-${tree}/**/*.${ext}`, options, query);
}

async function write(tree: string, select: string, copyOptions: string): Promise<void> {
  for (const [format, ext] of [['parquet', 'parquet'], ['vortex', 'vtx']]) {
    await conn.run(`COPY (${select}) TO ${sqlString(`${dir}/${format}-${tree}`)} (FORMAT ${format}, ${copyOptions})`);
    void ext;
  }
}

// Partition values of every shape whose detected type could differ: NULL partitions, timestamps
// (escaped in paths), leading zeros, values past BIGINT, decimals, booleans, empty strings.
const TREES: Record<string, string> = {
  ints: '(i % 3)::INTEGER',
  nulls: 'CASE WHEN i % 4 = 0 THEN NULL ELSE i % 3 END',
  dates: "DATE '2024-01-01' + (i % 3)::INTEGER",
  timestamps: "TIMESTAMP '2024-01-01 10:00:00' + to_hours(i % 3)",
  strings: "['a b', 'x/y', 'q=1', 'é', '007'][1 + i % 5]",
  zeros: "['007', '08', '1'][1 + i % 3]",
  negative: '(i % 3) - 1',
  huge: '[99999999999999999999, 1][1 + i % 2]::HUGEINT',
  decimals: '[1.5, 2.25][1 + i % 2]::DOUBLE',
  booleans: 'i % 2 = 0',
  empty: "['', 'z'][1 + i % 2]",
};

beforeAll(async () => {
  ({ conn } = await openDb());
  for (const [tree, p] of Object.entries(TREES)) {
    await write(tree, `SELECT i, ${p} AS p, i * 7 AS v FROM range(40) r(i)`, 'PARTITION_BY (p)');
  }
  await write('two', "SELECT i, i % 2 AS p, ['u', 'v'][1 + i % 3] AS q, i * 7 AS v FROM range(40) r(i)", 'PARTITION_BY (q, p)');
  // The partition key written into the files too: read_parquet takes the directory's value, in the
  // column's own place.
  await write('written', "SELECT i, (i % 3)::INTEGER AS p, 'x' || i AS s FROM range(40) r(i)", 'PARTITION_BY (p), WRITE_PARTITION_COLUMNS true');
  // Files whose column disagrees with their directory (and a NULL directory), small zones.
  for (const [format, ext] of [['parquet', 'parquet'], ['vortex', 'vtx']]) {
    for (const [d, value] of [['1', '5'], ['2', '2'], ['NULL', '7'], ['10', 'NULL']]) {
      const at = `${dir}/${format}-disagree/p=${d}/q=a`;
      mkdirSync(at, { recursive: true });
      await conn.run(`COPY (SELECT i AS a, ${value}::INTEGER AS p, i * 2 AS b, 'f${d}' AS s FROM range(${d === 'NULL' ? 50 : 100}) r(i))
        TO ${sqlString(`${at}/f.${ext}`)} (FORMAT ${format}${format === 'vortex' ? ', ROW_GROUP_SIZE 16' : ''})`);
    }
  }
});

const OPTIONS = ['', ', hive_partitioning = true', ", hive_types = {'p': 'VARCHAR'}", ", hive_types = {'p': 'INTEGER'}",
  ", hive_types = {'p': 'DOUBLE'}", ', hive_types_autocast = false', ", hive_types = {'nope': 'INTEGER'}",
  ", hive_partitioning = false, hive_types = {'p': 'INTEGER'}", ", hive_types = 'INTEGER'"];

describe('vortex_scan hive options, as read_parquet', () => {
  for (const tree of [...Object.keys(TREES), 'two']) {
    it(`types and values of partitions: ${tree}`, async () => {
      for (const options of OPTIONS) {
        // A partition value that does not cast to its hive_types type: read_parquet still
        // describes the columns and fails on reading; vortex_scan casts the values when binding,
        // so it fails on both, with the same error.
        const all = await both(tree, options, (from) => `SELECT * FROM ${from} ORDER BY i`);
        const castError = all.parquet.startsWith('error: Invalid Input Error: Unable to cast');
        for (const query of [
          (from: string) => `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${from})`,
          (from: string) => `SELECT * FROM ${from} ORDER BY i`,
          (from: string) => `SELECT p, count(*), sum(v) FROM ${from} WHERE p IS NOT NULL GROUP BY p ORDER BY ALL`,
          (from: string) => `SELECT count(*), min(p), max(p) FROM ${from} WHERE p = (SELECT max(p) FROM ${from})`,
        ]) {
          const r = await both(tree, options, query);
          const want = castError ? all.parquet : r.parquet;
          expect(r.on, `${tree} ${options}: ${query('F')}`).toBe(want);
          expect(r.off, `${tree} ${options}: ${query('F')}`).toBe(want);
        }
      }
    });
  }

  it('reads a partition key that is also a column of the files in its place, from the path', async () => {
    for (const tree of ['written', 'disagree']) {
      for (const options of ['', ', hive_partitioning = false', ", hive_types = {'p': 'INTEGER'}", ', union_by_name = true']) {
        for (const query of [
          (from: string) => `DESCRIBE SELECT * FROM ${from}`,
          (from: string) => `SELECT * EXCLUDE (s) FROM ${from} ORDER BY ALL`,
          (from: string) => `SELECT p, count(*), min(s), max(s) FROM ${from} GROUP BY p ORDER BY ALL`,
          (from: string) => `SELECT count(*), min(p), max(p), sum(p), count(p), count(DISTINCT p) FROM ${from}`,
          (from: string) => `SELECT count(*) FROM ${from} WHERE p = 1`,
          (from: string) => `SELECT count(*) FROM ${from} WHERE p = 5 OR p IS NULL`,
          (from: string) => `SELECT count(*), max(s) FROM ${from} WHERE p > 1 AND s LIKE '%1%'`,
          (from: string) => `SELECT s, p FROM ${from} ORDER BY p DESC NULLS LAST, s LIMIT 4`,
        ]) {
          const r = await both(tree, options, query);
          expect(r.on, `${tree} ${options}: ${query('F')}`).toBe(r.parquet);
          expect(r.off, `${tree} ${options}: ${query('F')}`).toBe(r.parquet);
        }
      }
    }
    // The files' own statistics of that column no longer describe it: nothing is pushed over it.
    const scan = `vortex_scan(${sqlString(`${dir}/vortex-disagree/**/*.vtx`)})`;
    expect(await isPushed(conn, `SELECT max(p) FROM ${scan}`)).toBe(false);
    expect(await explain(conn, `SELECT max(p) FROM ${scan}`)).toContain('a partition key replaces a');
  });

  it('names the filename column as asked, before the partition keys, as read_parquet', async () => {
    for (const options of [", filename = 'path'", ', filename = true', ', filename = 1', ", filename = 'i'"]) {
      for (const query of [
        (from: string) => `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${from})`,
        (from: string) => `SELECT * FROM ${from} ORDER BY i LIMIT 3`,
        (from: string) => `SELECT count(*) FROM ${from} WHERE ${options.includes('path') ? 'path' : 'filename'} LIKE '%q=u%'`,
      ]) {
        const r = await both('two', options, query);
        expect(r.on, `${options}: ${query('F')}`).toBe(r.parquet);
        expect(r.off, `${options}: ${query('F')}`).toBe(r.parquet);
      }
    }
  });

  it('refuses a filename column named as a partition key, which crashes read_parquet', async () => {
    // DuckDB 1.4's read_parquet gives the column the key's type and the file name's value, and
    // fails with an internal error that invalidates the database; ours is a binder error.
    const from = `vortex_scan(${sqlString(`${dir}/vortex-two/**/*.vtx`)}, filename = 'q')`;
    expect(await answerText(conn, `SELECT * FROM ${from}`)).toMatch(/^error: Binder Error: vortex_scan: hive partition "q" has the name of the filename column/);
    expect(await answerText(conn, 'SELECT 42')).toContain('42');
  });

  it('reports directories with different keys as read_parquet does when partitioning is asked for', async () => {
    for (const [format, ext] of [['parquet', 'parquet'], ['vortex', 'vtx']]) {
      for (const key of ['q', 'r']) {
        mkdirSync(`${dir}/${format}-mismatch/${key}=1`, { recursive: true });
        await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(`${dir}/${format}-mismatch/${key}=1/a.${ext}`)} (FORMAT ${format})`);
      }
    }
    for (const options of ['', ', hive_partitioning = true', ', hive_partitioning = false']) {
      const r = await both('mismatch', options, (from) => `SELECT * FROM ${from}`);
      expect(r.on, options).toBe(r.parquet);
      expect(r.off, options).toBe(r.parquet);
    }
  });
});
