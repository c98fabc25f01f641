import fc from 'fast-check';
import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, rows, sqlString, tempDir, VERIFY } from './helpers';

// Filters through monotone functions and calendar fields of one column (`year(ts) = 2024`,
// `month(ts) BETWEEN 3 AND 4`, `v // 1000 = 5`) are decided per zone from the column's min and
// max (native/duckdb/scan/zone_bounds.cpp). Property: over sorted and shuffled data, zones of
// several sizes, NULLs and infinities, the answers pushed, with pushdown off and on a DuckDB table
// agree in value and type.

const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261204);
const RUNS = Number(process.env.VORTEX_FC_BOUNDS_RUNS ?? 12);

const int = (lo: number, hi: number) => fc.integer({ min: lo, max: hi });
const year = int(2022, 2026);
const months = ['January', 'March', 'July', 'December'];
const days = ['Monday', 'Thursday', 'Sunday'];

const atoms: fc.Arbitrary<string> = fc.oneof(
  year.map((y) => `year(ts) = ${y}`),
  fc.tuple(year, year).map(([a, b]) => `year(ts) IN (${a}, ${b})`),
  fc.tuple(year, fc.constantFrom('<', '<=', '>', '>=', '<>')).map(([y, op]) => `year(d) ${op} ${y}`),
  int(1, 12).map((m) => `month(ts) = ${m}`),
  fc.tuple(int(1, 12), int(0, 4)).map(([m, w]) => `month(ts) BETWEEN ${m} AND ${m + w}`),
  int(1, 12).map((m) => `NOT (month(d) = ${m})`),
  int(1, 4).map((q) => `quarter(d) = ${q}`),
  int(1, 31).map((k) => `day(ts) <= ${k}`),
  int(1, 366).map((k) => `dayofyear(d) > ${k}`),
  int(0, 23).map((h) => `hour(ts) = ${h}`),
  int(0, 59).map((k) => `minute(ts) < ${k}`),
  int(0, 59).map((k) => `second(ts) >= ${k}`),
  int(0, 59999).map((k) => `millisecond(ts) < ${k}`),
  int(1, 7).map((k) => `isodow(ts) = ${k}`),
  int(0, 6).map((k) => `dayofweek(d) = ${k}`),
  fc.constantFrom(...months).map((m) => `monthname(ts) = '${m}'`),
  fc.constantFrom(...days).map((m) => `dayname(d) <> '${m}'`),
  fc.constantFrom(202, 203).map((k) => `decade(d) = ${k}`),
  fc.constantFrom(20, 21).map((k) => `century(ts) = ${k}`),
  fc.tuple(fc.constantFrom(7, 1000, 86400), int(-3, 3000)).map(([k, c]) => `v // ${k} = ${c}`),
  fc.tuple(fc.constantFrom(7, 1000), int(-3, 3000), int(0, 50)).map(([k, c, w]) => `v // ${k} BETWEEN ${c} AND ${c + w}`),
  fc.tuple(fc.constantFrom(13, 500), int(-3, 3000), int(-3, 3000)).map(([k, a, b]) => `v // ${k} IN (${a}, ${b})`),
  fc.tuple(fc.constantFrom('6 hours', '3 days', '1 month'), int(0, 40)).map(([w, k]) =>
    `time_bucket(INTERVAL '${w}', ts) >= TIMESTAMP '2023-11-20' + INTERVAL ${k * 7} DAY`),
  fc.tuple(fc.constantFrom('week', 'month', 'quarter'), int(0, 40)).map(([u, k]) =>
    `date_trunc('${u}', d) <> DATE '2023-11-20' + ${k * 9}`),
  int(0, 600).map((k) => `ts::DATE = DATE '2023-11-20' + ${k}`),
  fc.tuple(fc.constantFrom('=', '>=', '<'), int(0, 600)).map(([op, k]) => `date_trunc('day', ts) ${op} TIMESTAMP '2023-11-20' + INTERVAL ${k} DAY`),
  fc.tuple(int(0, 9000), int(0, 9000)).map(([a, b]) =>
    `date_trunc('hour', ts) IN (TIMESTAMP '2023-11-20' + INTERVAL ${a} HOUR, TIMESTAMP '2023-11-20' + INTERVAL ${b} HOUR)`),
  fc.tuple(year, int(1, 12)).map(([y, m]) => `year(ts) = ${y} OR month(ts) = ${m}`),
  year.map((y) => `year(ts) = ${y} OR ts IS NULL`),
  year.map((y) => `year(ts) IS DISTINCT FROM ${y}`),
  int(0, 40).map((k) => `ts > TIMESTAMP '2023-11-20' + INTERVAL ${k * 9} DAY OR year(ts) = 2025`),
);

const predicate = fc.oneof(
  { weight: 3, arbitrary: fc.array(atoms, { minLength: 1, maxLength: 3 }).map((a) => a.map((x) => `(${x})`).join(' AND ')) },
  { weight: 1, arbitrary: fc.tuple(atoms, atoms).map(([a, b]) => `(${a}) OR (${b})`) },
);

const dir = tempDir('vtx-bounds-');
let conn: DuckDBConnection;
let run = 0;

beforeAll(async () => {
  ({ conn } = await openDb());
});

/**
 * A table and the same rows in one .vtx file: timestamps `step` seconds apart from 2023-11-20
 * (sorted or shuffled), NULLs unless `dense`, and with `ends` an infinity at each end.
 */
async function write(seed: number, n: number, step: number, sorted: boolean, ends: boolean, zone: number, dense = false) {
  // DuckDB's verifier fails DuckDB's own query over a table column with infinities and no NULL
  // (its statistics of calendar fields say "no NULLs" while infinities give NULL); a small table
  // may have no NULL either way.
  if (VERIFY) ends = false;
  const k = run++;
  const table = `b${k}`;
  const h = (x: number, i = 'i') => `hash(${i} * 1000003 + ${seed + x})`;
  const nulls = (x: number, m: number) => (dense ? 'false' : `${h(x)} % ${m} = 0`);
  const ts = `TIMESTAMP '2023-11-20 00:00:00.123' + INTERVAL (i * ${step}) SECOND`;
  const end = ends ? `CASE WHEN i = 0 THEN TIMESTAMP '-infinity' WHEN i = ${n - 1} THEN TIMESTAMP 'infinity' ELSE ${ts} END` : ts;
  await conn.run(`CREATE TABLE ${table} AS SELECT i AS id,
      CASE WHEN ${nulls(1, 29)} THEN NULL ELSE ${end} END AS ts,
      CASE WHEN ${nulls(2, 31)} THEN NULL ELSE (${end})::DATE END AS d,
      CASE WHEN ${nulls(3, 23)} THEN NULL ELSE i * ${step} - 5000 END AS v
    FROM range(${n}) r(i)`);
  const file = join(dir, `b${k}.vtx`);
  await conn.run(`COPY (SELECT * FROM ${table} ORDER BY ${sorted ? 'id' : h(4, 'id')}) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE ${zone})`);
  return { table, src: `vortex_scan(${sqlString(file)})` };
}

describe('filters through monotone functions and calendar fields, decided from zone bounds', () => {
  it('equal DuckDB pushed, with pushdown off and on a table', async () => {
    await fc.assert(
      fc.asyncProperty(int(0, 1 << 30), int(1, 20000), fc.constantFrom(7, 611, 3607, 86400 + 7, 86400 * 5),
        fc.boolean(), fc.boolean(), fc.constantFrom(100, 1000, 4000), fc.boolean(), fc.array(predicate, { minLength: 4, maxLength: 4 }),
        async (seed, n, step, sorted, ends, zone, dense, predicates) => {
          const { table, src } = await write(seed, n, step, sorted, ends, zone, dense);
          for (const p of predicates) {
            const queries = [
              (from: string) => `SELECT count(*), count(ts), sum(v), min(id), max(d), sum(hash(id)) FROM ${from} WHERE ${p}`,
              (from: string) => `SELECT month(ts), count(*), sum(v) FROM ${from} WHERE ${p} GROUP BY ALL ORDER BY ALL`,
            ];
            for (const q of queries) {
              const want = await answerText(conn, q(table));
              expect(await answerText(conn, q(src)), q(src)).toBe(want);
              await conn.run('SET vortex_pushdown = false');
              expect(await answerText(conn, q(src)), `pushdown off: ${q(src)}`).toBe(want);
              await conn.run('RESET vortex_pushdown');
            }
          }
        }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);

  const analyze = async (sql: string) =>
    (await rows(conn, `EXPLAIN ANALYZE ${sql}`)).map((r) => String(r[1])).join('\n').replace(/[│\s]+/g, ' ');

  it('skip or answer whole zones of sorted data from their statistics', async () => {
    // About 100 zones of 1,000 rows (COPY evens out its batches), a row every 10 minutes: a zone spans about a week. (Where the
    // column has NULLs, a zone whose values all pass still has rows that do not: it is read.)
    const { table, src } = await write(1, 100_000, 600, true, false, 1000, true);
    for (const w of ['year(ts) = 2024', 'year(ts) = 2024 AND month(ts) = 3', 'month(d) BETWEEN 2 AND 3 AND year(d) = 2025',
      'year(d) IN (2023, 2025)', 'v // 86400 = 300', 'quarter(ts) = 2 AND year(ts) = 2024']) {
      const q = (from: string) => `SELECT count(*), sum(v), count(ts) FROM ${from} WHERE ${w}`;
      expect(await answerText(conn, q(src)), w).toBe(await answerText(conn, q(table)));
      const plan = await analyze(q(src));
      expect(plan, w).toContain('Pushed Aggregates');
      // Only zones across a year's, month's or bucket's boundary are read.
      const decoded = Number(/Zones Decoded: (\d+)/.exec(plan)?.[1]);
      expect(decoded, `${w}: ${plan}`).toBeLessThanOrEqual(4);
      expect(Number(/Zones From Statistics: (\d+)/.exec(plan)?.[1]) + Number(/Zones Skipped: (\d+)/.exec(plan)?.[1]), `${w}: ${plan}`)
        .toBeGreaterThanOrEqual(96 - decoded);
    }
    // A field within a unit the zone spans (hour over a week) is read row by row.
    const plan = await analyze(`SELECT count(*) FROM ${src} WHERE hour(ts) = 3`);
    expect(Number(/Zones Decoded: (\d+)/.exec(plan)?.[1]), plan).toBeGreaterThan(90);
    expect(Number(/Zones Skipped: (\d+)/.exec(plan)?.[1]), plan).toBe(0);
  });

  it('every comparison, at values the column takes and beyond them, equals DuckDB', async () => {
    // Sorted, so most zones span a boundary of some unit; the constants are the terms' own values
    // (as DuckDB computes them), so comparisons fall exactly on zones' ends.
    for (const dense of [true, false]) await compareAll(dense);
  });

  async function compareAll(dense: boolean) {
    const { table, src } = await write(3, 30_000, 2351, true, true, 700, dense);
    const terms = ['year(ts)', 'month(ts)', "date_trunc('day', ts)", 'day(d)', 'hour(ts)', 'quarter(d)', 'dayofyear(ts)', 'isodow(d)',
      'v // 86400', 'v // 7', "date_trunc('month', d)", "time_bucket(INTERVAL '10 days', ts)", 'monthname(ts)'];
    const ops = ['=', '<>', '<', '<=', '>', '>='];
    let checked = 0;
    for (const term of terms) {
      const count = Number((await rows(conn, `SELECT count(DISTINCT ${term}) FROM ${table}`))[0][0]);
      const picks = [0, 1, count >> 2, count >> 1, count - 2, count - 1].filter((i) => i >= 0 && i < count);
      for (const i of new Set(picks)) {
        const literal = (await rows(conn, `SELECT '''' || k::VARCHAR || '''::' || typeof(k) FROM (SELECT DISTINCT ${term} AS k FROM ${table}
          WHERE k IS NOT NULL ORDER BY k LIMIT 1 OFFSET ${i})`))[0][0] as string;
        for (const op of ops) {
          const q = (from: string) => `SELECT count(*), sum(v), count(ts) FROM ${from} WHERE ${term} ${op} ${literal}`;
          const want = await answerText(conn, q(table));
          expect(await answerText(conn, q(src)), q(src)).toBe(want);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  }

  it('in a time zone other than UTC, TIMESTAMP WITH TIME ZONE keeps DuckDB\'s answers', async () => {
    await conn.run(`CREATE TABLE tzs AS SELECT i AS id,
        TIMESTAMPTZ '2024-03-09 00:00:00+00' + INTERVAL (i * 97) SECOND AS tz FROM range(20000) r(i)`);
    const file = join(dir, 'tz.vtx');
    await conn.run(`COPY tzs TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 500)`);
    for (const zoneName of ['America/New_York', 'Australia/Lord_Howe', 'UTC']) {
      await conn.run(`SET TimeZone = '${zoneName}'`);
      for (const w of ['year(tz) = 2024', 'hour(tz) = 2', 'day(tz) = 10 AND month(tz) = 3', "date_trunc('hour', tz) = TIMESTAMPTZ '2024-03-10 03:00:00+00'",
        'tz::DATE = DATE \'2024-03-10\'']) {
        const q = (from: string) => `SELECT count(*), sum(id) FROM ${from} WHERE ${w}`;
        expect(await answerText(conn, q(sqlString(file))), `${zoneName}: ${w}`).toBe(await answerText(conn, q('tzs')));
      }
    }
    await conn.run('RESET TimeZone');
  });

  it('EXPLAIN lists the filter as written', async () => {
    const { src } = await write(2, 1000, 600, true, false, 100);
    expect(await explain(conn, `SELECT count(*) FROM ${src} WHERE year(ts) = 2024`)).toContain('year');
  });
});
