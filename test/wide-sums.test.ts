import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, isPushed, openDb, sqlString, tempDir } from './helpers';

// sum/avg over 128-bit integers (HUGEINT, DECIMAL wider than 18 digits) are pushed only when
// zone statistics prove that no order of addition can overflow DuckDB's 128-bit accumulator;
// then they equal DuckDB's answer exactly. Otherwise DuckDB sums, and its own error surfaces.

let conn: DuckDBConnection;
const dir = tempDir('vtx-wide-');
let n = 0;

beforeAll(async () => {
  ({ conn } = await openDb());
});

const outcome = (sql: string) => answerText(conn, sql);

/** Writes `select` to a .vtx file (small zones) and a native table; returns the scan and the table. */
async function load(select: string): Promise<{ scan: string; table: string }> {
  const path = join(dir, `w${n}.vtx`);
  const table = `native_${n++}`;
  await conn.run(`CREATE TABLE ${table} AS ${select}`);
  await conn.run(`COPY ${table} TO ${sqlString(path)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
  return { scan: `vortex_scan(${sqlString(path)})`, table };
}

const TEN38 = '99999999999999999999999999999999999999'; // 10^38 - 1
const H_MAX = '170141183460469231731687303715884105727'; // 2^127 - 1

const CASES: Array<{ name: string; select: string; pushed: boolean }> = [
  { name: 'HUGEINT, small values', select: `SELECT (i * 1000003 - 5000)::HUGEINT AS x FROM range(5000) t(i)`, pushed: true },
  { name: 'HUGEINT near ±10^38, few rows', select: `SELECT (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END * (10::HUGEINT ** 37)::HUGEINT + i)::HUGEINT AS x FROM range(10) t(i)`, pushed: true },
  { name: 'HUGEINT with NULLs', select: `SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 7)::HUGEINT END AS x FROM range(3000) t(i)`, pushed: true },
  { name: 'HUGEINT all NULL', select: `SELECT NULL::HUGEINT AS x FROM range(2500) t(i)`, pushed: true },
  { name: 'HUGEINT max twice (overflows)', select: `SELECT ${H_MAX}::HUGEINT AS x FROM range(2) t(i)`, pushed: false },
  { name: 'HUGEINT large, no overflow but unprovable', select: `SELECT CASE WHEN i = 0 THEN ${H_MAX}::HUGEINT ELSE (-1)::HUGEINT END AS x FROM range(3) t(i)`, pushed: false },
  { name: 'DECIMAL(22,2)', select: `SELECT (((i * 7919) % 100000000 - 50000000) / 7)::DECIMAL(22,2) AS x FROM range(4000) t(i)`, pushed: true },
  { name: 'DECIMAL(38,10) near 10^27, 8 rows', select: `SELECT (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END * 999999999999999999999999999.9999999999::DECIMAL(38,10)) AS x FROM range(8) t(i)`, pushed: true },
  { name: 'DECIMAL(38,10) near 10^27, 50 rows (unprovable)', select: `SELECT (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END * 999999999999999999999999999.9999999999::DECIMAL(38,10)) AS x FROM range(50) t(i)`, pushed: false },
  { name: 'DECIMAL(38,0) near 10^38 (sum past 10^38)', select: `SELECT ${TEN38}::DECIMAL(38,0) AS x FROM range(2) t(i)`, pushed: false },
  { name: 'DECIMAL(38,0) 10^38 - 1 once', select: `SELECT CASE WHEN i = 0 THEN ${TEN38}::DECIMAL(38,0) ELSE NULL END AS x FROM range(5) t(i)`, pushed: true },
];

describe.each(CASES)('$name', ({ select, pushed }) => {
  it('gives DuckDB\'s own answer (or error), pushed exactly when the proof holds', async () => {
    const { scan, table } = await load(select);
    for (const aggs of ['sum(x)', 'avg(x)', 'sum(x), avg(x), count(x), min(x), max(x)']) {
      const query = `SELECT ${aggs} FROM ${scan}`;
      expect(await isPushed(conn, query), query).toBe(pushed);
      const native = await outcome(`SELECT ${aggs} FROM ${table}`);
      expect(await outcome(query), query).toBe(native);
      await conn.run('SET vortex_pushdown = false');
      expect(await outcome(query), `${query} (not pushed)`).toBe(native);
      await conn.run('SET vortex_pushdown = true');
    }
  });
});

it('the overflow a wide sum cannot avoid surfaces as DuckDB raises it', async () => {
  const { scan } = await load(`SELECT ${H_MAX}::HUGEINT AS x FROM range(2) t(i)`);
  expect(await outcome(`SELECT sum(x) FROM ${scan}`)).toMatch(/Overflow in HUGEINT addition/);
});
