// DuckDB's late materialization over vortex_scan: a Top-N or LIMIT of a few rows reads the sort and
// filter columns first and joins the other columns back by (file_index, file_row_number), whose
// filters skip every zone but the kept rows' own and select those rows inside them. Answers equal
// the DuckDB table's over the same rows: one file and many, hive partitions, union_by_name, filters
// of every kind, OFFSET, DESC, ties broken by a unique key; and filters a user writes on
// file_row_number, which the scan now applies itself (zone by zone, then row by row).
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, openDb, referenceText, rows, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-late-');
let conn: DuckDBConnection;
const one = `${dir}/one.vtx`;

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run(`CREATE TABLE t AS SELECT i AS id, (hash(i) % 100000)::BIGINT AS k, i % 7 AS g,
      CASE WHEN i % 11 = 0 THEN NULL ELSE 'https://site/' || (hash(i * 3) % 5000) || CASE WHEN i % 97 = 0 THEN '/google/' ELSE '/' END END AS url,
      TIMESTAMP '2024-01-01' + INTERVAL (hash(i * 5) % 1000000) SECOND AS ts,
      ${Array.from({ length: 12 }, (_, c) => `(hash(i * ${c + 13}) % 1000)::INTEGER AS c${c}, 'v' || (hash(i * ${c + 29}) % 300) AS s${c}`).join(', ')}
    FROM range(60000) r(i)`);
  await conn.run(`COPY t TO ${sqlString(one)} (FORMAT vortex, ROW_GROUP_SIZE 4096)`);
  await conn.run(`COPY t TO ${sqlString(`${dir}/parts`)} (FORMAT vortex, PARTITION_BY (g), ROW_GROUP_SIZE 2048)`);
  await conn.run(`CREATE TABLE tp AS SELECT * FROM t`);
  await conn.run(`CREATE TABLE t2 AS SELECT * FROM t UNION ALL SELECT * FROM t`);
});

const QUERIES = [
  (f: string) => `SELECT * FROM ${f} ORDER BY ts, id LIMIT 10`,
  (f: string) => `SELECT * FROM ${f} WHERE url LIKE '%google%' ORDER BY ts, id LIMIT 10`,
  (f: string) => `SELECT * FROM ${f} WHERE k > 50000 ORDER BY k DESC, id LIMIT 25`,
  (f: string) => `SELECT * FROM ${f} WHERE c3 < 100 AND s1 <> 'v5' ORDER BY c4, id LIMIT 7 OFFSET 13`,
  (f: string) => `SELECT id, s0, s11, url FROM ${f} ORDER BY url NULLS FIRST, id LIMIT 3`,
  (f: string) => `SELECT * FROM ${f} WHERE id % 1000 = 999 ORDER BY id LIMIT 50`,
  (f: string) => `SELECT * FROM ${f} WHERE g IN (2, 5) ORDER BY ts DESC, id LIMIT 10`,
];

describe('late materialization over vortex_scan', () => {
  it('joins the other columns back by row number, reading few zones', async () => {
    const plan = String((await rows(conn, `EXPLAIN ANALYZE SELECT * FROM vortex_scan(${sqlString(one)}) WHERE url LIKE '%google%' ORDER BY ts, id LIMIT 10`))[0][1]);
    expect(plan).toMatch(/SEMI/);
    expect(plan).toMatch(/file_row_number/);
    // The scan that joins the rows back skips the zones that hold none of them.
    const skipped = [...plan.matchAll(/Zones Skipped: (\d+)/g)].map((m) => Number(m[1]));
    expect(Math.max(...skipped)).toBeGreaterThan(0);
  });

  it.each([
    ['one file', () => `vortex_scan(${sqlString(one)})`, 't'] as const,
    ['hive partitions', () => `vortex_scan(${sqlString(`${dir}/parts/**/*.vtx`)})`, 'tp'],
    ['the same file twice', () => `vortex_scan([${sqlString(one)}, ${sqlString(one)}])`, 't2'],
  ])('answers as the DuckDB table: %s', async (_name, scan, table) => {
    for (const q of QUERIES) {
      for (const pushdown of [true, false]) {
        await conn.run(`SET vortex_pushdown = ${pushdown}`);
        // Hive partitions put g last: both sides list it last.
        const expected = await referenceText(conn, q(table).replace('SELECT *', 'SELECT * EXCLUDE (g), g'));
        expect(expected, q(table)).not.toMatch(/^error/);
        expect(await answerText(conn, q(scan()).replace('SELECT *', 'SELECT * EXCLUDE (g), g')), q('F')).toBe(expected);
      }
    }
    await conn.run('SET vortex_pushdown = true');
  });

  it('applies filters on file_row_number itself, exactly', async () => {
    const scan = `vortex_scan(${sqlString(one)}, file_row_number = true)`;
    const expectedOf = (where: string) => `SELECT count(*), sum(id), min(id), max(id) FROM (SELECT *, id AS file_row_number FROM t) WHERE ${where}`;
    for (const where of [
      'file_row_number IN (0, 4095, 4096, 59999, 70000)', 'file_row_number BETWEEN 4000 AND 8200', 'file_row_number > 59990 OR file_row_number < 3',
      'file_row_number = 12345', 'file_row_number >= 100 AND file_row_number < 100', 'NOT (file_row_number < 59000)', 'file_row_number <> 5',
      'file_row_number IN (1, 2, 3) AND id > 1',
    ]) {
      expect(await answerText(conn, `SELECT count(*), sum(id), min(id), max(id) FROM ${scan} WHERE ${where}`), where).toBe(await referenceText(conn, expectedOf(where)));
    }
  });

  it('never decodes the projected columns, nor the string filter columns, of a zone whose integer filters fail every row', async () => {
    // k is even, so `k = 2001` lies within zone 1's bounds (the statistics cannot rule the zone
    // out) and no row has it. Zone 1's segment of s is then corrupted: a scan that decoded it
    // before filtering would fail its checksum.
    const f = `${dir}/emptied.vtx`;
    await conn.run(`COPY (SELECT i, i * 2 AS k, repeat('long string ', 8) || i AS s FROM range(4000) r(i)) TO ${sqlString(f)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    const [[offset, bytes]] = await rows(conn, `SELECT "offset", stored_bytes FROM vortex_metadata(${sqlString(f)}) WHERE zone = 1 AND column_name = 's'`);
    const { openSync, readSync, writeSync, closeSync } = await import('node:fs');
    const fd = openSync(f, 'r+');
    const at = Number(offset) + Math.floor(Number(bytes) / 2);
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, at);
    b[0] ^= 0xff;
    writeSync(fd, b, 0, 1, at);
    closeSync(fd);
    for (const q of [`SELECT s FROM vortex_scan(${sqlString(f)}) WHERE k = 2001`, `SELECT s FROM vortex_scan(${sqlString(f)}) WHERE k = 2001 OR k = 3001`,
      `SELECT i, s FROM vortex_scan(${sqlString(f)}) WHERE k % 1000 = 1`,
      // Filters on the string itself wait for the integer filters to leave a row.
      `SELECT s FROM vortex_scan(${sqlString(f)}) WHERE k = 2001 AND s <> '${'long string '.repeat(8)}1500'`, `SELECT s FROM vortex_scan(${sqlString(f)}) WHERE k = 2001 AND s LIKE '%9%'`]) {
      expect(await answerText(conn, q), q).toBe(JSON.stringify({ types: q.includes('i, s') ? ['BIGINT', 'VARCHAR'] : ['VARCHAR'], rows: [] }));
    }
    // Where a row of the zone passes, the corruption is found and named.
    await expect(conn.run(`SELECT s FROM vortex_scan(${sqlString(f)}) WHERE k = 2002`)).rejects.toThrow(/emptied\.vtx/);
  });
});
