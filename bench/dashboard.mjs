#!/usr/bin/env node
// A dashboard's queries (issues 20 and 21): time buckets as group keys, filters DuckDB keeps above
// the scan (IN lists, ORs, LIKE '%x%', calendar fields), and distinct counts; .vtx with pushdown on and off, Parquet
// and a DuckDB table, side by side in one process.
//   node bench/dashboard.mjs [--rows=50000000] [--runs=5] [--only=<part of a query's name>] [--reuse]
// --reuse keeps the files of an earlier run of the same size (the table is built again either way).
// Events: `ts` sorted (one event every 0.1 s, so 50M rows span about 58 days), a 5-value region,
// a 3-value status, a 40-value url, a user id, an amount.
import { existsSync, rmSync, statSync } from 'node:fs';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table, time, timeInterleaved } from './common.mjs';

const args = parseArgs({ rows: 50_000_000, runs: 5, only: '', reuse: false });
const { conn } = await connect();
console.log(`# dashboard benchmark, ${args.rows.toLocaleString()} events; ${machine()}`);

const dir = dataDir(`dashboard-${args.rows}`);
const vtx = `${dir}/events.vtx`, parquet = `${dir}/events.parquet`, bare = `${dir}/events-nosketch.vtx`;
await conn.run(`CREATE TABLE events AS SELECT
    TIMESTAMP '2024-01-01' + INTERVAL (i * 100) MILLISECOND AS ts,
    ['eu', 'us', 'ap', 'sa', 'af'][1 + (hash(i) % 5)::INTEGER] AS region,
    ['ok', 'err', 'retry'][1 + (hash(i * 3) % 3)::INTEGER] AS status,
    '/' || ['home', 'search', 'product', 'cart', 'checkout'][1 + (hash(i * 5) % 5)::INTEGER] || '/' || (hash(i * 7) % 8)::VARCHAR AS url,
    (hash(i * 11) % 2000000)::BIGINT AS user_id,
    (hash(i * 13) % 100000)::BIGINT AS amount
  FROM range(${args.rows}) r(i)`);
if (!args.reuse || ![vtx, bare, parquet].every((f) => existsSync(f))) {
  for (const f of [vtx, bare, parquet]) rmSync(f, { force: true });
  await conn.run(`COPY events TO ${q(vtx)} (FORMAT vortex)`);
  await conn.run(`COPY events TO ${q(bare)} (FORMAT vortex, SKETCHES false)`);
  await conn.run(`COPY events TO ${q(parquet)} (FORMAT parquet)`);
}
const last = (await conn.runAndReadAll('SELECT max(ts)::VARCHAR FROM events')).getRowsJS()[0][0];

const CASES = {
  "GROUP BY date_trunc('hour', ts)": (f) => `SELECT date_trunc('hour', ts) AS h, count(*), sum(amount) FROM ${f} GROUP BY h ORDER BY h`,
  "GROUP BY date_trunc('day', ts)": (f) => `SELECT date_trunc('day', ts) AS d, count(*), sum(amount), max(amount) FROM ${f} GROUP BY d ORDER BY d`,
  'last 24 hours by hour': (f) => `SELECT date_trunc('hour', ts) AS h, count(*), sum(amount) FROM ${f}
      WHERE ts > TIMESTAMP '${last}' - INTERVAL 24 HOUR GROUP BY h ORDER BY h`,
  "region IN ('eu','us') OR status = 'ok'": (f) => `SELECT count(*), sum(amount), max(amount) FROM ${f} WHERE region IN ('eu', 'us') OR status = 'ok'`,
  "url LIKE '%checkout%'": (f) => `SELECT count(*), sum(amount) FROM ${f} WHERE url LIKE '%checkout%'`,
  'month(ts) = 2': (f) => `SELECT count(*), sum(amount) FROM ${f} WHERE month(ts) = 2`,
  'one day by hour: day(ts) = 15 AND month(ts) = 1': (f) => `SELECT date_trunc('hour', ts) AS h, count(*), sum(amount) FROM ${f}
      WHERE day(ts) = 15 AND month(ts) = 1 GROUP BY h ORDER BY h`,
  'weekends: dayofweek(ts) IN (0, 6)': (f) => `SELECT count(*), sum(amount) FROM ${f} WHERE dayofweek(ts) IN (0, 6)`,
  'GROUP BY dayofweek(ts)': (f) => `SELECT dayofweek(ts) AS w, count(*), sum(amount) FROM ${f} GROUP BY w ORDER BY w`,
  'by hour of day: GROUP BY hour(ts)': (f) => `SELECT hour(ts) AS h, count(*), sum(amount) FROM ${f} GROUP BY h ORDER BY h`,
  'count(DISTINCT region)': (f) => `SELECT count(DISTINCT region) FROM ${f}`,
  'approx_count_distinct(user_id)': (f) => `SELECT approx_count_distinct(user_id) FROM ${f}`,
  'count(DISTINCT user_id) per day': (f) => `SELECT ts::DATE AS d, count(DISTINCT user_id) FROM ${f} GROUP BY d ORDER BY d`,
};

const out = [['query', 'pushed?', 'vtx', 'pushdown off', 'parquet', 'duckdb table', 'SELECT 1', 'off/vtx', 'parquet/vtx', 'table/vtx', 'vtx/SELECT 1']];
const show = (r) => JSON.stringify(r.rows, (_, v) => (typeof v === 'bigint' ? String(v) : v));
for (const [name, sql] of Object.entries(CASES).filter(([n]) => n.includes(args.only))) {
  await conn.run('SET vortex_pushdown = true');
  const plan = (await conn.runAndReadAll(`EXPLAIN ${sql(`vortex_scan(${q(vtx)})`)}`)).getRowsJS().map((r) => r[1]).join('');
  const pushed = plan.includes('Pushed Aggregates');
  // The first distinct count over a file checks the zones' distinct values and sketches against
  // their rows (once per file version): run it once before timing, as a service's second query.
  await conn.run(sql(`vortex_scan(${q(vtx)})`));
  const [vtxMs, oneMs] = await timeInterleaved(conn, [sql(`vortex_scan(${q(vtx)})`), 'SELECT 1'], { runs: Math.max(args.runs, 11) });
  const on = { ms: vtxMs, rows: (await conn.runAndReadAll(sql(`vortex_scan(${q(vtx)})`))).getRowsJS() };
  // "pushdown off": aggregates, GROUP BY and the filters DuckDB keeps above the scan all left to
  // DuckDB (vortex_pushdown and vortex_pushdown_expressions false); table filters stay the scan's.
  await conn.run('SET vortex_pushdown = false');
  await conn.run('SET vortex_pushdown_expressions = false');
  const off = await time(conn, sql(`vortex_scan(${q(vtx)})`), { runs: args.runs });
  await conn.run('SET vortex_pushdown = true');
  await conn.run('SET vortex_pushdown_expressions = true');
  const pq = await time(conn, sql(`read_parquet(${q(parquet)})`), { runs: args.runs });
  const tbl = await time(conn, sql('events'), { runs: args.runs });
  if (show(on) !== show(off) || show(on) !== show(tbl)) throw new Error(`results differ for ${name}`);
  out.push([name, pushed ? 'yes' : 'no', fmtMs(on.ms), fmtMs(off.ms), fmtMs(pq.ms), fmtMs(tbl.ms), fmtMs(oneMs),
    `${(off.ms / on.ms).toFixed(1)}x`, `${(pq.ms / on.ms).toFixed(1)}x`, `${(tbl.ms / on.ms).toFixed(2)}x`, (on.ms / oneMs).toFixed(1)]);
}
console.log(table(out));
const size = (f) => statSync(f).size;
console.log(`\nfile sizes: .vtx ${size(vtx).toLocaleString()} bytes, without sketches ${size(bare).toLocaleString()} (sketches +${((size(vtx) / size(bare) - 1) * 100).toFixed(2)}%), parquet ${size(parquet).toLocaleString()}`);
