#!/usr/bin/env node
// Differential soak: random queries of every shape the scan takes part in (filtered rows,
// aggregates under filters, GROUP BY, Top-N, joins whose filters reach the scan, hive
// partitions), each run on vortex_scan with pushdown on and off and on a DuckDB table of the
// same rows, on 1 to 4 threads, compared exactly. Runs until the time is up; prints every
// mismatch with its SQL and exits 1 if there was one.
//
// The unit tests run each shape a bounded number of times; a race in the scan (a per-thread
// buffer shared by two vectors, a dynamic filter read while Top-N tightens it) shows only as an
// occasional wrong row when the same queries are repeated on several threads, which is what
// this does. Not part of CI (it runs for minutes); run it after touching the scan.
//
//   node scripts/soak-queries.mjs [--seconds 120] [--seed 1] [--rows 300000] [--files 4]
//
// Uses the built package (dist/ and the addon; VORTEX_ADDON_PATH selects another build). Loaded
// with require, so that the other DuckDB line runs it too:
//   VORTEX_NODE_API_DIR=.cache/node-api-<its version> node -r ./scripts/with-node-api.cjs scripts/soak-queries.mjs
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { DuckDBInstance, version } = require('@duckdb/node-api');
const { registerVortex } = require(join(root, 'dist', 'index.js'));

const { values: flags } = parseArgs({
  options: { seconds: { type: 'string', default: '120' }, seed: { type: 'string', default: '1' },
    rows: { type: 'string', default: '300000' }, files: { type: 'string', default: '4' } },
});
const [seconds, seed, rows, fileCount] = [flags.seconds, flags.seed, flags.rows, flags.files].map(Number);

// Mulberry32: a small seeded generator, so that a failing run can be repeated.
let state = seed >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const pick = (xs) => xs[int(0, xs.length - 1)];

const dir = mkdtempSync(join(tmpdir(), 'vtx-soak-queries-'));
const q = (s) => `'${s.replace(/'/g, "''")}'`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await registerVortex(conn);

// Sorted `id`, clustered `k`, a dictionary-friendly string with NULLs, a random integer with
// NULLs, a double with NaN, infinities and -0.0, a decimal, a timestamp, a boolean, a struct
// and a list, few values of wide ranges (`wide`, `few_ts`: dictionary-coded), and `part` for the
// hive layout.
await conn.run(`CREATE TABLE t AS SELECT
    i AS id,
    (i // ${Math.max(1, Math.floor(rows / 40))})::INTEGER AS k,
    CASE WHEN hash(i + ${seed}) % 11 = 0 THEN NULL ELSE ['ant','bee','cat','dog','eel','fox','gnu'][1 + (hash(i * 3 + ${seed}) % 7)::INTEGER] END AS s,
    CASE WHEN hash(i * 5 + ${seed}) % 13 = 0 THEN NULL ELSE (hash(i * 7 + ${seed}) % 2000000)::BIGINT - 1000000 END AS x,
    CASE hash(i * 11 + ${seed}) % 97 WHEN 0 THEN 'NaN'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE
      WHEN 3 THEN -0.0 WHEN 4 THEN NULL ELSE ((hash(i * 13 + ${seed}) % 100000)::DOUBLE - 50000) / 100 END AS d,
    (((hash(i * 17 + ${seed}) % 10000000)::BIGINT - 5000000) * 0.01)::DECIMAL(12,2) AS m,
    TIMESTAMP '2026-01-01' + to_seconds(i * 3) AS ts,
    CASE WHEN hash(i * 19 + ${seed}) % 5 = 0 THEN NULL ELSE hash(i * 23 + ${seed}) % 2 = 0 END AS b,
    {'a': (hash(i * 29 + ${seed}) % 100)::INTEGER, 'b': CASE WHEN i % 9 = 0 THEN NULL ELSE 'v' || (i % 5) END} AS st,
    CASE WHEN i % 17 = 0 THEN NULL ELSE [i % 3, (i % 7)::BIGINT] END AS l,
    DATE '2020-01-01' + (i // 977)::INTEGER AS dt,
    (hash(i * 37 + ${seed}) % 256)::UTINYINT AS u8,
    CASE WHEN (i // 2000) % 3 = 0 THEN NULL ELSE ((hash(i * 41 + ${seed}) % 60000)::INTEGER - 30000)::SMALLINT END AS i16,
    CASE WHEN i % 23 = 0 THEN NULL ELSE (hash(i * 43 + ${seed})::HUGEINT * 1000000000000 - 9000000000000000000000000000) END AS h,
    md5((i * 47 + ${seed})::VARCHAR) AS txt,
    TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_minutes(i) AS tz,
    CASE WHEN (i // 1500) % 2 = 0 THEN NULL ELSE (i // 1500)::INTEGER END AS z,
    [-5000000000, 3, 77777777, NULL, 12][1 + (hash(i * 53 + ${seed}) % 5)::INTEGER]::BIGINT AS wide,
    TIMESTAMP '2026-01-01' + to_minutes((hash(i * 59 + ${seed}) % 40)::BIGINT * 97) AS few_ts,
    (hash(i * 31 + ${seed}) % 6)::BIGINT AS part -- the type hive partitioning infers for it
  FROM range(${rows}) r(i)`);

// Files hold contiguous ranges of `id`, each written with its own zone size, so that zones
// straddle, match or miss a filter in every combination.
const files = [];
for (let f = 0; f < fileCount; f++) {
  const lo = Math.floor((rows * f) / fileCount), hi = Math.floor((rows * (f + 1)) / fileCount);
  const path = join(dir, `part-${f}.vtx`);
  const zone = pick([1024, 2048, 5000, 20000, 0]); // 0: the writer's default (122,880 rows)
  await conn.run(`COPY (SELECT * FROM t WHERE id >= ${lo} AND id < ${hi}) TO ${q(path)} (FORMAT vortex${zone ? `, ROW_GROUP_SIZE ${zone}` : ''})`);
  files.push(path);
}
// More files than a scan keeps open (64): those are reopened by the threads and checked
// against the version planned with, another code path.
const many = join(dir, 'many');
mkdirSync(many);
for (let f = 0; f < 70; f++) {
  await conn.run(`COPY (SELECT * FROM t WHERE id % 70 = ${f}) TO ${q(join(many, `m-${f}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE 1024)`);
}
const hive = join(dir, 'hive');
await conn.run(`COPY t TO ${q(hive)} (FORMAT vortex, PARTITION_BY (part), ROW_GROUP_SIZE 3000)`);

const SOURCES = [
  `vortex_scan([${files.map(q).join(', ')}])`,
  `vortex_scan(${q(join(dir, 'part-*.vtx'))})`,
  `vortex_scan(${q(`${hive}/**/*.vtx`)})`,
  // With the filename column, which comes before the partition keys (as read_parquet orders them).
  `vortex_scan(${q(`${hive}/**/*.vtx`)}, filename := true)`,
  `vortex_scan(${q(join(many, '*.vtx'))})`,
];

const predicate = (depth = 0) => {
  if (depth < 2 && random() < 0.3) {
    const n = int(2, 3);
    const parts = Array.from({ length: n }, () => predicate(depth + 1));
    return `(${parts.join(random() < 0.6 ? ' AND ' : ' OR ')})`;
  }
  const id = () => int(-10, rows + 10);
  return pick([
    () => `id >= ${id()}`,
    () => `id < ${id()}`,
    () => { const a = id(); return `id BETWEEN ${a} AND ${a + int(0, rows / 20)}`; },
    () => `k = ${int(-1, 41)}`,
    () => `k IN (${Array.from({ length: int(1, 4) }, () => int(0, 41)).join(', ')})`,
    () => `s = ${q(pick(['ant', 'bee', 'cat', 'dog', 'eel', 'fox', 'gnu', 'zzz']))}`,
    () => `s IN (${q(pick(['ant', 'cat', 'eel']))}, ${q(pick(['bee', 'dog', 'gnu']))})`,
    () => `s > ${q(pick(['b', 'cat', 'e', 'fox']))}`,
    () => pick(['s IS NULL', 's IS NOT NULL', 'x IS NULL', 'x IS NOT NULL', 'd IS NULL', 'b IS NULL']),
    () => `x ${pick(['<', '<=', '>', '>=', '=', '<>'])} ${int(-1100000, 1100000)}`,
    () => `d ${pick(['<', '>=', '='])} ${pick(["'NaN'::DOUBLE", "'inf'::DOUBLE", '0.0', '-0.0', String(int(-500, 500))])}`,
    () => `m ${pick(['<', '>'])} ${(int(-5000000, 5000000) / 100).toFixed(2)}`,
    () => `ts >= TIMESTAMP '2026-01-01' + INTERVAL ${int(0, rows * 3)} SECOND`,
    () => pick(['b', 'NOT b', 'b = true']),
    () => `st.a < ${int(0, 100)}`,
    () => `part = ${int(0, 6)}`,
    () => `part IN (${int(0, 5)}, ${int(0, 5)})`,
    () => `dt ${pick(['<', '>=', '='])} DATE '2020-01-01' + ${int(0, Math.ceil(rows / 977))}`,
    () => `u8 ${pick(['<', '>', '='])} ${int(0, 255)}`,
    () => `i16 BETWEEN ${int(-31000, 31000)} AND ${int(-31000, 31000)}`,
    () => pick(['i16 IS NULL', 'z IS NULL', 'z IS NOT NULL', 'h IS NULL']),
    () => `h ${pick(['<', '>'])} ${BigInt(int(-9000, 9000)) * 1000000000000000000000000n}`,
    () => `txt ${pick(['<', '>=', '='])} ${q(pick(['0', '4', '8', 'a', 'c', 'f']) + pick(['', '1', 'e', '77']))}`,
    () => `txt LIKE ${q(pick(['0', 'a', 'ff']) + '%')}`,
    () => `tz >= TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_minutes(${int(0, rows)})`,
    () => `z ${pick(['<', '>', '='])} ${int(0, Math.ceil(rows / 1500))}`,
    // Expressions the scan evaluates per dictionary entry or per zone (round three).
    () => `${pick(['s', 'txt', 'st.b'])} ${pick(['LIKE', 'NOT LIKE', 'ILIKE'])} ${q(pick(['%o%', '%a%', '%E%', '_a_', '%7', 'a%', '%ff%', '%', '%\\_%']))}`,
    () => `${pick(['contains', 'prefix', 'suffix'])}(${pick(['s', 'txt'])}, ${q(pick(['a', 'o', 'e', '0', 'f1', '']))})`,
    () => `s NOT IN (${q(pick(['ant', 'cat', 'eel']))}, ${q(pick(['bee', 'dog', 'zzz']))}${random() < 0.3 ? ', NULL' : ''})`,
    () => `${pick(['x', 'k', 'u8'])} ${pick(['IN', 'NOT IN'])} (${Array.from({ length: int(1, 5) }, () => int(-5, 255)).join(', ')})`,
    () => `(${pick(['s', 'k::VARCHAR'])} = ${q(pick(['ant', 'dog', '3']))} OR x ${pick(['<', '>'])} ${int(-1100000, 1100000)})`,
    () => `NOT (${predicate(depth + 1)})`,
    () => `date_trunc(${q(pick(['hour', 'day', 'minute']))}, ts) ${pick(['=', '>=', '<'])} TIMESTAMP '2026-01-01' + INTERVAL ${int(0, Math.ceil(rows / 1200))} HOUR`,
    () => `${pick(['year', 'month', 'dayofweek'])}(dt) = ${int(0, 12)}`,
    () => `date_trunc(${q(pick(['hour', 'day']))}, tz) ${pick(['=', '>=', '<'])} TIMESTAMPTZ '2026-03-01 00:00:00+00' + INTERVAL ${int(0, Math.ceil(rows / 60))} HOUR`,
    () => `lower(s) ${pick(['=', '<>', '>'])} ${q(pick(['ant', 'dog', 'cat']))}`,
    // Monotone functions and calendar fields, decided from zones' min and max (session 20).
    () => `${pick(['year', 'month', 'day', 'hour', 'minute', 'quarter', 'dayofyear', 'isodow'])}(${pick(['ts', 'dt'])}) ${pick(['=', '<', '>=', '<>', '>'])} ${int(0, 31)}`,
    () => `year(dt) ${pick(['=', '<', '>='])} ${int(2019, 2022)} AND month(dt) ${pick(['=', '<=', '>'])} ${int(1, 12)}`,
    () => {
      const t = `${pick(['k', 'u8', 'z'])} // ${pick([3, 10, 64])}`;
      return random() < 0.3 ? `${t} IN (${int(0, 30)}, ${int(0, 30)})` : `${t} ${pick(['=', '<', '>='])} ${int(0, 30)}`;
    },
    () => `day(ts) BETWEEN ${int(1, 8)} AND ${int(5, 14)}`,
  ])();
};

// Every random choice is made here, before the query is instantiated for each source.
const shape = () => {
  const where = random() < 0.85 ? ` WHERE ${predicate()}` : '';
  const group = pick(['k', 's', 'part', 'k, s', 'b', 's, part', 'dt', 'u8', 'z', 'i16', 'dt, s', 'txt',
    // Computed keys the grouped scan buckets itself (round three).
    "date_trunc('hour', ts)", "date_trunc('day', ts)", "time_bucket(INTERVAL '15 minutes', ts)",
    "date_trunc('month', dt)", "date_trunc('hour', tz)", "date_trunc('day', tz)", "time_bucket(INTERVAL '1 day', tz)",
    "date_trunc('day', ts), s", 'k // 4', 'year(dt)',
    // Calendar fields (session 20): one key within a unit of time.
    'hour(ts)', 'dayofweek(ts)', 'month(dt)', 'day(ts), s',
    // Narrowing casts: out of range on rows a filter may remove (session 21).
    'u8::TINYINT', 'i16::TINYINT',
    // Buckets applied once per distinct value of a column with few values a zone (session 22).
    'u8 // 16', 'dayofweek(dt)', "time_bucket(INTERVAL '7 days', dt)", 'u8 // 32, s', 'year(dt), u8 // 64',
    // Fixed-width dictionaries grouped on their codes (session 22).
    'wide', 'wide, s', "date_trunc('hour', few_ts)", 'hour(few_ts), wide', 'few_ts']);
  const distinctCol = pick(['s', 'x', 'k', 'dt', 'txt', 'u8', 'i16', 'z']);
  const limit = random() < 0.3 ? ` LIMIT ${int(1, 500)}` : '';
  const order = pick(['id DESC', 'id', 'x DESC NULLS LAST, id', 'ts DESC, id', 'm, id']);
  // Every key, each in a random direction and NULL order: a total order on the groups, which the
  // grouped scan may take over from DuckDB's sort.
  const keyOrder = group.split(', ').map((k) => `${k}${pick(['', ' DESC'])}${pick(['', ' NULLS FIRST', ' NULLS LAST'])}`).join(', ');
  const n = int(1, 50);
  const filters = [predicate(), predicate(), predicate()];
  const having = pick(['count(*) > ' + int(0, 50), 'sum(x) > 0', 'min(id) % 2 = 0', "max(s) >= 'cat'"]);
  const sets = pick(['ROLLUP', 'CUBE']);
  const a = int(0, rows), w = int(1, rows / 10), step = int(1, 7);
  return pick([
    // aggregates under filters, ungrouped
    (from) => `SELECT count(*), count(x), sum(x), min(x), max(x), avg(x), sum(m), min(m), max(m), min(s), max(s), min(ts), max(ts), min(id), max(id), count(d), min(k), max(k), sum(st.a), min(st.b), count(l), min(b), max(b),
      min(dt), max(dt), min(u8), max(u8), sum(u8), avg(u8), min(i16), max(i16), sum(i16), count(i16), min(h), max(h), sum(h),
      min(txt), max(txt), min(tz), max(tz), count(z), sum(z), min(z), max(z) FROM ${from}${where}`,
    // grouped
    (from) => `SELECT ${group}, count(*), sum(x), min(x), max(x), avg(x), sum(m), min(id), max(ts), sum(h), min(txt), count(z) FROM ${from}${where} GROUP BY ${group} ORDER BY ALL`,
    (from) => `SELECT ${group}, count(*), sum(x), max(id) FROM ${from}${where} GROUP BY ${group} ORDER BY ${keyOrder}`,
    // rows
    (from) => `SELECT id, k, s, x, d, m, ts, b, st, l, dt, u8, i16, h, txt, tz, z FROM ${from}${where} ORDER BY id${limit}`,
    // Top-N (its dynamic filter), on a unique or a tied key
    (from) => `SELECT id, x FROM ${from}${where} ORDER BY ${order} LIMIT ${n}`,
    // a join whose filters reach the probe side's scan
    (from) => `SELECT count(*), sum(x), min(s), max(id) FROM ${from} JOIN range(${a}, ${a + w}, ${step}) r(j) ON id = j${where}`,
    // counts only
    (from) => `SELECT count(*) FROM ${from}${where}`,
    // distinct counts, exact and from the sketches, ungrouped and grouped (round three)
    (from) => `SELECT count(DISTINCT ${distinctCol}), approx_count_distinct(${distinctCol}), count(*), count(DISTINCT s) FROM ${from}${where}`,
    (from) => `SELECT ${group}, count(DISTINCT ${distinctCol}), approx_count_distinct(${distinctCol}), count(*) FROM ${from}${where} GROUP BY ALL ORDER BY ALL`,
    // Shapes around the pushed aggregates that must stay DuckDB's: FILTER clauses, HAVING,
    // arithmetic over and inside aggregates, grouping sets, collated keys.
    (from) => `SELECT count(*) FILTER (WHERE ${filters[0]}), sum(x) FILTER (WHERE ${filters[1]}), min(s) FILTER (WHERE ${filters[2]}), max(id), count(z) FROM ${from}${where}`,
    (from) => `SELECT ${group}, count(*), sum(x) FROM ${from}${where} GROUP BY ${group} HAVING ${having} ORDER BY ALL`,
    (from) => `SELECT sum(x) + count(*), sum(x + 1), sum(CASE WHEN b THEN x END), max(id) - min(id), avg(u8) * 2, count(x * 0) FROM ${from}${where}`,
    (from) => `SELECT k // 10 AS g, s, count(*), sum(x), grouping(g, s) FROM ${from}${where} GROUP BY ${sets}(g, s) ORDER BY ALL`,
    (from) => `SELECT s COLLATE nocase AS c, count(*), min(id) FROM ${from}${where} GROUP BY c ORDER BY ALL`,
  ]);
};

const show = (reader) => JSON.stringify(reader.getRowsJS(), (_, v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v));
const run = async (sql) => {
  try {
    return show(await conn.runAndReadAll(sql));
  } catch (e) {
    // Which out-of-range value a cast meets first depends on the threads' order: the error's
    // kind is compared, not its value.
    return `error: ${e.message.split('\n')[0].replace(/with value \S+/, 'with value …').replace(/ when casting from source column \w+/, '')}`;
  }
};

// The first differing cell (row, column) of two answers, or their heads where they do not parse
// alike: a wide row's difference lies past any fixed prefix.
const differing = (got, want) => {
  if (got === want) return 'equal';
  try {
    const [a, b] = [JSON.parse(got), JSON.parse(want)];
    for (let r = 0; r < Math.max(a.length, b.length); r++) {
      for (let c = 0; c < Math.max(a[r]?.length ?? 0, b[r]?.length ?? 0); c++) {
        if (JSON.stringify(a[r]?.[c]) !== JSON.stringify(b[r]?.[c])) {
          return `row ${r} column ${c + 1}: ${JSON.stringify(a[r]?.[c])} (expected ${JSON.stringify(b[r]?.[c])}); ${a.length} rows, expected ${b.length}`;
        }
      }
    }
  } catch {
    // an error message, not rows
  }
  return got.slice(0, 400);
};

let queries = 0, mismatches = 0;
const stop = Date.now() + seconds * 1000;
console.log(`soak: DuckDB ${version()}, seed ${seed}, ${rows} rows in ${fileCount} files and a hive layout, ${seconds} s, in ${dir}`);
while (Date.now() < stop) {
  const make = shape();
  const source = pick(SOURCES);
  const sql = make(source);
  const reference = make('t'); // the same rows as a DuckDB table
  await conn.run(`SET threads = ${int(1, 4)}`);
  // date_trunc and time_bucket of a TIMESTAMPTZ, and its casts, follow the session's time zone;
  // Lord Howe and Chatham shift by 30 and 45 minutes.
  await conn.run(`SET TimeZone = ${q(pick(['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham']))}`);
  await conn.run('SET vortex_pushdown = true');
  const pushed = await run(sql);
  await conn.run('SET vortex_pushdown = false');
  const off = await run(sql);
  const expected = await run(reference);
  queries++;
  if (pushed !== expected || off !== expected) {
    mismatches++;
    console.log(`MISMATCH #${mismatches}\n  ${sql}\n  pushed:   ${differing(pushed, expected)}\n  off:      ${differing(off, expected)}\n  expected: ${expected.slice(0, 400)}`);
  }
}
await conn.run('SET vortex_pushdown = true');
rmSync(dir, { recursive: true, force: true });
console.log(`${queries} queries, ${mismatches} mismatches`);
process.exit(mismatches ? 1 : 0);
