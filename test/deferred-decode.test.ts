import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerText, openDb, sqlString, tempDir } from './helpers';

// A column the scan hands to DuckDB or filters on is left packed (frame of reference, dictionary,
// runs) and decoded a vector at a time into DuckDB's vector (only the kept rows, where a filter
// keeps few of a vector), or evaluated a block at a time, once per dictionary entry or run. Zones
// of several vectors and a partial one, NULLs, every width the deferral takes (2, 4 and 8 bytes),
// filters that keep whole vectors, none, few and most rows: every answer must be a DuckDB table's.

let conn: DuckDBConnection;
let src: string;

// Dictionary-coded: few values spread wide (a frame would need more than 8 bits). Frames: narrow ranges.
const COLUMNS = `
  i AS id,
  CASE WHEN i % 17 = 0 THEN NULL ELSE ([-70000, 3, 90000, 123456789, -5])[1 + (hash(i) % 5)::INTEGER]::INTEGER END AS di,
  ([-1000000000000, 7, 1099511627776, 42])[1 + (hash(i * 3) % 4)::INTEGER]::BIGINT AS db,
  CASE WHEN i % 5 = 0 THEN NULL ELSE ([-30000, 0, 30000])[1 + (i % 3)]::SMALLINT END AS ds,
  ([1.5, 99999.25, -3.75])[1 + (i % 3)]::DECIMAL(15, 2) AS dd,
  (i % 1000 - 500)::INTEGER AS fi,
  CASE WHEN i % 3 = 0 THEN NULL ELSE 1125899906842624 + (hash(i) % 100000)::BIGINT END AS fb,
  (DATE '2024-01-01' + (i % 400)::INTEGER) AS fd,
  (i % 200)::SMALLINT AS fs,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i // 9) * 1000003 END::BIGINT AS rb,
  ((i // 12) % 50 * 100000)::INTEGER AS ri,
  (i // 40 % 7 * 1000)::SMALLINT AS rs,
  TIMESTAMP '2024-01-01' + to_seconds((i // 30) * 3600) AS rt`;

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run(`CREATE TABLE t AS SELECT ${COLUMNS} FROM range(23000) r(i)`);
  const file = join(tempDir('vtx-deferred-'), 't.vtx');
  await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 7000)`);
  src = `vortex_scan(${sqlString(file)})`;
  const enc = (await conn.runAndReadAll(`SELECT column_name, list(DISTINCT encoding) FROM vortex_metadata(${sqlString(file)}) GROUP BY 1`)).getRowsJS();
  const by = Object.fromEntries(enc.map((r) => [r[0] as string, JSON.stringify(r[1])]));
  // The data must reach the encodings it is meant to test.
  for (const c of ['di', 'db', 'ds']) expect(by[c], c).toContain('dictionary');
  for (const c of ['fi', 'fb', 'fd', 'fs']) expect(by[c], c).toContain('for+bitpack');
  for (const c of ['rb', 'ri', 'rs', 'rt']) expect(by[c], c).toContain('rle');
});

describe('values left packed until DuckDB or a filter asks for them', () => {
  const cols = ['di', 'db', 'ds', 'dd', 'fi', 'fb', 'fd', 'fs', 'rb', 'ri', 'rs', 'rt'];
  it.each(cols)('%s handed to DuckDB whole and under a filter on another column', async (c) => {
    for (const where of ['', 'WHERE id % 1000 = 999', 'WHERE id >= 6000 AND id < 9100', 'WHERE id > 22990', 'WHERE id < 0']) {
      const q = (f: string) => `SELECT id, ${c} FROM ${f} ${where} ORDER BY id`;
      expect(await answerText(conn, q(src)), `${c} ${where}`).toBe(await answerText(conn, q('t')));
    }
  });

  const filters: Array<[string, string]> = [
    ['di', 'di = 90000'], ['di', 'di IN (3, -5)'], ['di', 'di IS NULL'], ['di', 'di < 0'], ['di', 'di <> 3'],
    ['db', 'db = 7'], ['db', 'db > 42'], ['db', 'db BETWEEN 7 AND 42'],
    ['ds', 'ds >= 0'], ['ds', 'ds IS NOT NULL'], ['ds', 'ds = 30000'],
    ['dd', 'dd < 2'], ['dd', 'dd IN (99999.25, -3.75)'],
    ['fi', 'fi < -400'], ['fi', 'fi BETWEEN -10 AND 10'], ['fi', 'fi = 499'],
    ['fb', 'fb > 1125899906892624'], ['fb', 'fb IS NULL'],
    ['fd', "fd >= DATE '2024-12-01'"], ['fd', "fd = DATE '2024-02-29'"],
    ['fs', 'fs < 3 OR fs > 196'],
    ['rb', 'rb > 2000000000'], ['rb', 'rb IS NULL'], ['rb', 'rb BETWEEN 1000003 AND 5000015'],
    ['ri', 'ri = 4900000'], ['ri', 'ri <> 0'], ['rs', 'rs IN (0, 6000)'],
    ['rt', "rt >= TIMESTAMP '2024-02-01'"], ['rt', "rt = TIMESTAMP '2024-01-05 03:00:00'"],
  ];
  it.each(filters)('%s only filtered on: %s', async (_c, where) => {
    const q = (f: string) => `SELECT count(*), sum(id), min(id), max(id) FROM ${f} WHERE ${where}`;
    const rows = (f: string) => `SELECT id FROM ${f} WHERE ${where} ORDER BY id`;
    for (const pushdown of [true, false]) {
      await conn.run(`SET vortex_pushdown = ${pushdown}`);
      expect(await answerText(conn, q(src)), where).toBe(await answerText(conn, q('t')));
      expect(await answerText(conn, rows(src)), where).toBe(await answerText(conn, rows('t')));
    }
    await conn.run('SET vortex_pushdown = true');
  });

  it.each(filters)('%s filtered on and handed to DuckDB: %s', async (c, where) => {
    // Where a filter on the column keeps few rows of a vector, only those are decoded and handed on.
    const q = (f: string) => `SELECT id, ${c} FROM ${f} WHERE ${where} ORDER BY id`;
    expect(await answerText(conn, q(src)), where).toBe(await answerText(conn, q('t')));
    const mixed = (f: string) => `SELECT id, ${c}, di, fb, rt FROM ${f} WHERE ${where} AND (id % 7 = 3 OR fs < 150) ORDER BY id`;
    expect(await answerText(conn, mixed(src)), where).toBe(await answerText(conn, mixed('t')));
  });

  it('two filter-only columns and a projected one, as TPC-H q06', async () => {
    const q = (f: string) => `SELECT sum(dd * fs), count(*) FROM ${f} WHERE fd >= DATE '2024-03-01' AND fd < DATE '2024-09-01' AND fs BETWEEN 5 AND 100 AND di < 100000`;
    await conn.run('SET vortex_pushdown = false');
    expect(await answerText(conn, q(src))).toBe(await answerText(conn, q('t')));
    await conn.run('SET vortex_pushdown = true');
    expect(await answerText(conn, q(src))).toBe(await answerText(conn, q('t')));
  });
});

describe('few rows of a vector kept: only those handed to DuckDB', () => {
  // Every kind of column the scan emits, under filters that keep 1 row in 500 (each vector then
  // passes on a handful of rows) and 1 in 2: plain and dictionary strings, floats, nested values
  // (emitted whole and sliced), the row number, the file name and a hive partition key.
  let few: string;
  let fewFile: string;
  beforeAll(async () => {
    await conn.run(`CREATE TABLE kinds AS SELECT i AS id, (i * 7919) % 100003 AS k,
      CASE WHEN i % 9 = 0 THEN NULL ELSE md5(i::VARCHAR) END AS s,
      CASE WHEN i % 11 = 0 THEN NULL ELSE (['red', 'green', 'blue'])[1 + i % 3] END AS cat,
      CASE WHEN i % 4 = 0 THEN NULL ELSE i / 7.0 END::DOUBLE AS x,
      CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': i, 'b': [i, NULL, i * 2]} END AS st,
      (i % 3 = 0) AS flag
      FROM range(30000) r(i)`);
    const root = tempDir('vtx-few-');
    mkdirSync(join(root, 'part=7'));
    fewFile = join(root, 'part=7', 'kinds.vtx');
    await conn.run(`COPY kinds TO ${sqlString(fewFile)} (FORMAT vortex, ROW_GROUP_SIZE 10000)`);
    few = `read_vortex(${sqlString(fewFile)}, filename := true, file_row_number := true, hive_partitioning := true)`;
  });

  it.each(['k < 200', 'k % 500 = 17', 'k < 50000', "cat = 'green' AND k < 300", 's IS NULL AND k < 1000'])(
    'every kind of column under %s', async (where) => {
      const cols = 'id, k, s, cat, x, st, flag';
      const vtx = await answerText(conn, `SELECT ${cols}, file_row_number = id, filename = ${sqlString(fewFile)}, part FROM ${few} WHERE ${where} ORDER BY id`);
      const table = await answerText(conn, `SELECT ${cols}, true, true, 7::BIGINT FROM kinds WHERE ${where} ORDER BY id`);
      expect(vtx).toBe(table);
    });
});

describe('dictionary and run-length values handed to DuckDB as dictionary vectors', () => {
  // Where a zone's dictionary or runs are few (rows per entry), the scan hands DuckDB a dictionary
  // vector over them (a NULL entry last) instead of decoded values: DuckDB's hash aggregate then
  // looks each entry up once. Every operator that reads the vector must see the same values:
  // grouping, distinct counts, joins, expressions and sorts of DuckDB's own, nothing pushed.
  const cols = ['di', 'db', 'ds', 'dd', 'rb', 'ri', 'rs', 'rt'];
  beforeAll(async () => {
    await conn.run('SET vortex_pushdown = false');
    await conn.run('SET vortex_pushdown_expressions = false');
  });
  it.each(cols)('%s through DuckDB operators', async (c) => {
    const queries = [
      (f: string) => `SELECT ${c}, count(*), count(DISTINCT id % 7), min(id) FROM ${f} GROUP BY ${c} ORDER BY ALL`,
      (f: string) => `SELECT count(DISTINCT ${c}), count(${c}), min(${c}), max(${c}) FROM ${f}`,
      (f: string) => `SELECT id % 5 AS g, count(DISTINCT ${c}) FROM ${f} GROUP BY g ORDER BY g`,
      (f: string) => `SELECT ${c}::VARCHAR AS v, hash(${c}) FROM ${f} WHERE id % 97 = 3 ORDER BY id`,
      (f: string) => `SELECT a.id, b.id FROM ${f} a JOIN (SELECT id, ${c} FROM ${f} WHERE id % 1009 = 1) b USING (${c}) WHERE a.id % 13 = 0 ORDER BY ALL`,
      (f: string) => `SELECT id, ${c} FROM ${f} ORDER BY ${c} NULLS FIRST, id LIMIT 50 OFFSET 7000`,
      (f: string) => `SELECT ${c}, id FROM ${f} WHERE ${c} IS NULL OR id % 311 = 0 ORDER BY id`,
    ];
    for (const q of queries) expect(await answerText(conn, q(src)), q(src)).toBe(await answerText(conn, q('t')));
  });
  afterAll(async () => {
    await conn.run('SET vortex_pushdown = true');
    await conn.run('SET vortex_pushdown_expressions = true');
  });
});
