import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, referenceText, rows, sqlString, tempDir } from './helpers';

// Every stored type through every way a pushed aggregate reaches its rows. A type handled on one
// path and forgotten on another is a wrong answer: sum(HUGEINT) under a filter decided per
// dictionary entry once returned 0, while the same sum unfiltered, grouped or under a row mask was
// right. So each type's count, min, max, sum, avg, count(DISTINCT) and approx_count_distinct run
// under each path and are compared with pushdown off and with a DuckDB table of the same rows.
// Floats are multiples of 1/4 well inside 2^53, so that every order of addition is exact and
// DuckDB's own float sums are comparable.

let conn: DuckDBConnection;
let src: string;
const dir = tempDir('vtx-type-paths-');
const ROWS = 12000;

// name, SQL for the value of row i (NULL in some rows), which aggregates apply.
const NUMERIC = ['count', 'min', 'max', 'sum', 'avg', 'distinct', 'approx'] as const;
const ORDERED = ['count', 'min', 'max', 'distinct', 'approx'] as const;
// Float min/max are never pushed (-0.0 and 0.0, NaN): left out so that the rest is.
const FLOATS = ['count', 'sum', 'avg', 'distinct', 'approx'] as const;
type Agg = (typeof NUMERIC)[number];
const COLUMNS: [string, string, readonly Agg[]][] = [
  ['c_bool', 'hash(i * 3) % 2 = 0', ['count', 'min', 'max', 'distinct', 'approx']],
  ['c_i8', '((hash(i * 5) % 250)::INTEGER - 125)::TINYINT', NUMERIC],
  ['c_i16', '((hash(i * 7) % 60000)::INTEGER - 30000)::SMALLINT', NUMERIC],
  ['c_i32', '((hash(i * 11) % 4000000000)::BIGINT - 2000000000)::INTEGER', NUMERIC],
  ['c_i64', '(hash(i * 13) % 9000000000000000000)::BIGINT - 4000000000000000000', NUMERIC],
  ['c_u8', '(hash(i * 17) % 256)::UTINYINT', NUMERIC],
  ['c_u16', '(hash(i * 19) % 65536)::USMALLINT', NUMERIC],
  ['c_u32', '(hash(i * 23) % 4294967296)::UINTEGER', NUMERIC],
  ['c_u64', 'hash(i * 29)', NUMERIC],
  ['c_i128', 'hash(i * 31)::HUGEINT * 1000000000000 - 9000000000000000000000000000', NUMERIC],
  ['c_u128', 'hash(i * 37)::UHUGEINT * 1000000000000', ORDERED],
  ['c_f32', '(((hash(i * 41) % 8000)::INTEGER - 4000) / 4)::FLOAT', FLOATS],
  ['c_f64', '((hash(i * 43) % 4000000)::BIGINT - 2000000) / 4', FLOATS],
  ['c_d4', '(((hash(i * 47) % 19999)::INTEGER - 9999) / 10)::DECIMAL(4,1)', NUMERIC],
  ['c_d9', '(((hash(i * 53) % 1999999999)::BIGINT - 999999999) / 100)::DECIMAL(9,2)', NUMERIC],
  ['c_d18', '(((hash(i * 59) % 1999999999999999999)::HUGEINT - 999999999999999999) / 1000)::DECIMAL(18,3)', NUMERIC],
  ['c_d38', '((hash(i * 61)::HUGEINT * 100000000 - 900000000000000000000000000) / 100000)::DECIMAL(38,5)', NUMERIC],
  ['c_date', "DATE '2000-01-01' + (hash(i * 67) % 20000)::INTEGER", ORDERED],
  ['c_time', "TIME '00:00:00' + to_microseconds((hash(i * 71) % 86400000000)::BIGINT)", ORDERED],
  ['c_ts', "TIMESTAMP '2020-01-01' + to_microseconds((hash(i * 73) % 100000000000000)::BIGINT)", ORDERED],
  ['c_tsz', "TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_seconds((hash(i * 79) % 100000000)::BIGINT)", ORDERED],
  ['c_str', "'s' || (hash(i * 83) % 5000)::VARCHAR", ORDERED],
  ['c_blob', "('b' || (hash(i * 89) % 300)::VARCHAR)::BLOB", ORDERED],
  ['c_uuid', "('00000000-0000-4000-8000-' || lpad((hash(i * 97) % 4000)::VARCHAR, 12, '0'))::UUID", ORDERED],
  // Shapes the encodings and statistics treat apart: a constant, runs, NULL in whole zones,
  // strings whose statistics are truncated (a long common prefix), empty and multi-byte strings,
  // infinities and NaN among the floats, -0.0 beside 0.0.
  ['c_const', '42::BIGINT', NUMERIC],
  ['c_runs', '(i // 700)::INTEGER - 8', NUMERIC],
  ['c_zone_nulls', 'CASE WHEN (i // 1000) % 3 = 0 THEN NULL ELSE hash(i * 103)::HUGEINT - 9000000000000000000 END', NUMERIC],
  ['c_long_str', "repeat('prefix/', 12) || (hash(i * 107) % 900)::VARCHAR", ORDERED],
  ['c_odd_str', "['', 'é', '日本語', 'a' || chr(0) || 'b', 'Z', 'zz', ' '][1 + (hash(i * 109) % 7)::INTEGER]", ORDERED],
  ['c_nonfinite', "CASE hash(i * 113) % 400 WHEN 0 THEN 'inf'::DOUBLE WHEN 1 THEN '-inf'::DOUBLE ELSE (hash(i * 127) % 1000)::DOUBLE / 4 END", FLOATS],
  ['c_nan', "CASE hash(i * 131) % 300 WHEN 0 THEN 'nan'::DOUBLE ELSE (hash(i * 137) % 1000)::DOUBLE / 4 END", FLOATS],
  ['c_zeros', "CASE hash(i * 139) % 3 WHEN 0 THEN -0.0 WHEN 1 THEN 0.0 ELSE 1.5 END", FLOATS],
];

const AGG_SQL: Record<Agg, (c: string) => string> = {
  count: (c) => `count(${c})`,
  min: (c) => `min(${c})`,
  max: (c) => `max(${c})`,
  sum: (c) => `sum(${c})`,
  avg: (c) => `avg(${c})`,
  distinct: (c) => `count(DISTINCT ${c})`,
  approx: (c) => `approx_count_distinct(${c})`,
};

// The ways in: whole zones from statistics; a sorted column's range (one run of rows per zone); a
// row mask from another column; a filter decided once per dictionary entry (LIKE, IN, an
// expression of the entry); a filter across two columns; grouped by a dictionary key, by a
// computed time bucket, and grouped under a per-entry filter.
const PATHS: [string, string, string][] = [
  ['statistics', '', ''],
  ['a sorted range', 'WHERE i >= 2500 AND i < 8100', ''],
  ['a row mask', 'WHERE g % 3 = 1', ''],
  ['per dictionary entry (LIKE)', "WHERE u LIKE '%e%'", ''],
  ['per dictionary entry (IN)', "WHERE u IN ('alpha', 'delta', 'zeta')", ''],
  ['per dictionary entry (expression)', "WHERE lower(u) <> 'beta'", ''],
  ['two columns (OR)', "WHERE contains(u, 'a') OR i > 10000", ''],
  ['grouped by a dictionary key', '', 'u'],
  ['grouped by an hour', '', "date_trunc('hour', ts)"],
  ['grouped under a per-entry filter', "WHERE u LIKE '%a%'", 'g'],
  // {col} and {q30}: the aggregated column and its 30% quantile, a filter zones straddle.
  ['a filter on the column itself', 'WHERE {col} >= {q30}', ''],
  ['grouped, filtered on the column itself', 'WHERE {col} < {q30} OR u IS NULL', 'g'],
  ['grouped by a key the files are sorted by', '', 'sk'],
  ['grouped by a sorted key under a filter', 'WHERE g <> 4', 'sk'],
];

beforeAll(async () => {
  ({ conn } = await openDb());
  // The pushed paths themselves are under test: pushed wherever the rules allow, even where the
  // cost model would leave a distinct count over list-less zones to DuckDB.
  await conn.run('SET vortex_pushdown_cost_based = false');
  const values = COLUMNS.map(([name, sql], k) => `CASE WHEN hash(i * ${101 + k}) % ${7 + (k % 5)} = 0 THEN NULL ELSE ${sql} END AS ${name}`);
  await conn.run(`CREATE TABLE t AS SELECT i,
      CASE WHEN hash(i * 2) % 13 = 0 THEN NULL ELSE ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'][1 + (hash(i * 4) % 7)::INTEGER] END AS u,
      (hash(i * 6) % 9)::INTEGER AS g,
      TIMESTAMP '2026-01-01' + to_seconds(i * 7) AS ts,
      i // 6 AS sk,
      ${values.join(',\n      ')}
    FROM range(${ROWS}) r(i)`);
  // Two files of different zone sizes: partial results merge across zones and files.
  const files = [join(dir, 't-0.vtx'), join(dir, 't-1.vtx')];
  await conn.run(`COPY (SELECT * FROM t WHERE i < 5000 ORDER BY i) TO ${sqlString(files[0])} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
  await conn.run(`COPY (SELECT * FROM t WHERE i >= 5000 ORDER BY i) TO ${sqlString(files[1])} (FORMAT vortex, ROW_GROUP_SIZE 1500)`);
  src = `vortex_scan([${files.map(sqlString).join(', ')}])`;
  for (const [name] of COLUMNS) {
    const [[q, type]] = await rows(conn, `SELECT quantile_disc(${name}, 0.3)::VARCHAR, any_value(typeof(${name})) FROM t`);
    q30.set(name, `CAST(${sqlString(String(q))} AS ${String(type)})`);
  }
});
const q30 = new Map<string, string>();

describe.each(PATHS)('every type through %s', (_name, where, group) => {
  it.each(COLUMNS)('%s: pushed = pushdown off = a DuckDB table', async (column, _sql, aggs) => {
    // One query for the plain aggregates, one per distinct count: a query is pushed only whole.
    const sets = [aggs.filter((a) => a !== 'distinct' && a !== 'approx'), ...aggs.filter((a) => a === 'distinct' || a === 'approx').map((a) => [a])];
    const filter = where.replace('{col}', column).replace('{q30}', q30.get(column) ?? '');
    for (const set of sets) {
      const list = set.map((a) => AGG_SQL[a](column)).join(', ');
      const q = (from: string) => group
        ? `SELECT ${group} AS k, count(*), ${list} FROM ${from} ${filter} GROUP BY ALL ORDER BY ALL`
        : `SELECT count(*), ${list} FROM ${from} ${filter}`;
      const want = await referenceText(conn, q('t'));
      if (process.env.VORTEX_TYPE_PATHS_COVERAGE) {
        console.log(`coverage: ${(await explain(conn, q(src))).includes('Pushed Aggregates') ? 'pushed' : 'not pushed'} | ${_name} | ${list}`);
      }
      expect(await answerText(conn, q(src)), q(src)).toBe(want);
      await conn.run('SET vortex_pushdown = false');
      try {
        expect(await answerText(conn, q(src)), q(src)).toBe(want);
      } finally {
        await conn.run('RESET vortex_pushdown');
      }
    }
  });
});

describe('the paths are taken', () => {
  // Guards the test above against testing nothing: the pushed scans answer these.
  it.each([
    ['statistics', `SELECT sum(c_i128), min(c_str) FROM SRC`, 'Pushed Aggregates'],
    ['per dictionary entry', `SELECT sum(c_i64), max(c_d38) FROM SRC WHERE u LIKE '%e%'`, 'Pushed Aggregates'],
    ['grouped', `SELECT time_bucket(INTERVAL '1 hour', ts), sum(c_i32), count(DISTINCT c_str) FROM SRC GROUP BY 1`, 'Pushed Aggregates'],
    ['sorted groups', `SELECT sk, sum(c_i32), max(c_i64) FROM SRC GROUP BY sk`, 'sorted runs'],
  ])('%s', async (_name, sql, marker) => {
    expect(await explain(conn, sql.replace('SRC', src))).toContain(marker);
  });
});

// The rows themselves, as the scan emits them under each kind of filter (dictionary, constant and
// flat vectors, a decoded run, values read after the filter for the surviving rows only).
const ROW_FILTERS: [string, string][] = [
  ['none', ''],
  ['a sorted range', 'WHERE i >= 2500 AND i < 8100'],
  ['a row mask', 'WHERE g % 3 = 1'],
  ['per dictionary entry', "WHERE u LIKE '%e%'"],
  ['two columns (OR)', "WHERE contains(u, 'a') OR i > 10000"],
  ['the column itself', 'WHERE {col} >= {q30}'],
];

describe.each(ROW_FILTERS)('every type, rows under %s', (_name, where) => {
  it.each(COLUMNS)('%s: the scan = a DuckDB table', async (column) => {
    const filter = where.replace('{col}', column).replace('{q30}', q30.get(column) ?? '');
    const q = (from: string) => `SELECT i, ${column} FROM ${from} ${filter} ORDER BY i`;
    expect(await answerText(conn, q(src)), q(src)).toBe(await referenceText(conn, q('t')));
  });
});
