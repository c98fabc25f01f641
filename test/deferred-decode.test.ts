import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, openDb, sqlString, tempDir } from './helpers';

// A column the scan only hands to DuckDB, or only filters on, is left packed (frame of reference,
// dictionary) and decoded a vector at a time into DuckDB's vector, or evaluated a block at a time
// and once per dictionary entry. Zones of several vectors and a partial one, NULLs, every width
// the deferral takes (2, 4 and 8 bytes), filters that keep whole vectors, none and some rows:
// every answer must be a DuckDB table's.

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
  (i % 200)::SMALLINT AS fs`;

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
});

describe('values left packed until DuckDB or a filter asks for them', () => {
  const cols = ['di', 'db', 'ds', 'dd', 'fi', 'fb', 'fd', 'fs'];
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

  it('two filter-only columns and a projected one, as TPC-H q06', async () => {
    const q = (f: string) => `SELECT sum(dd * fs), count(*) FROM ${f} WHERE fd >= DATE '2024-03-01' AND fd < DATE '2024-09-01' AND fs BETWEEN 5 AND 100 AND di < 100000`;
    await conn.run('SET vortex_pushdown = false');
    expect(await answerText(conn, q(src))).toBe(await answerText(conn, q('t')));
    await conn.run('SET vortex_pushdown = true');
    expect(await answerText(conn, q(src))).toBe(await answerText(conn, q('t')));
  });
});
