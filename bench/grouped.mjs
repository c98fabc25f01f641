#!/usr/bin/env node
// GROUP BY pushdown: pushed vs pushdown off vs Parquet vs a DuckDB table, side by side.
//   node bench/grouped.mjs [--rows=50000000] [--runs=5]
// Keys: `day` clustered (constant over runs of 1M rows), `color` a random 8-value string, and
// both together. Aggregates: count(*), sum(amount), min(amount), max(amount), avg(amount).
// `account` (4 rows a key, the file sorted by it: a quarter as many groups as rows) is grouped
// with a HAVING that keeps few groups, as TPC-H q18 does, and without avg (the sorted path's
// aggregates: count, sum, min, max).
import { rmSync } from 'node:fs';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table, time, timeInterleaved } from './common.mjs';

const args = parseArgs({ rows: 50_000_000, runs: 5 });
const { conn } = await connect();
console.log(`# grouped pushdown benchmark, ${args.rows.toLocaleString()} rows; ${machine()}`);

const dir = dataDir(`grouped-${args.rows}`);
const vtx = `${dir}/data.vtx`, parquet = `${dir}/data.parquet`;
await conn.run(`CREATE TABLE data AS SELECT (i // 1000000)::INTEGER AS day,
    ['red','orange','yellow','green','blue','indigo','violet','black'][1 + (hash(i) % 8)::INTEGER] AS color,
    (hash(i * 7) % 1000000)::BIGINT AS amount, (i // 4)::BIGINT AS account FROM range(${args.rows}) r(i)`);
rmSync(vtx, { force: true });
rmSync(parquet, { force: true });
await conn.run(`COPY data TO ${q(vtx)} (FORMAT vortex)`);
await conn.run(`COPY data TO ${q(parquet)} (FORMAT parquet)`);

// The same rows partitioned into 20 hive directories by `part`.
const hiveVtx = `${dir}/hive-vtx`, hiveParquet = `${dir}/hive-parquet`;
rmSync(hiveVtx, { recursive: true, force: true });
rmSync(hiveParquet, { recursive: true, force: true });
await conn.run(`COPY (SELECT *, (hash(amount) % 20)::BIGINT AS part FROM data) TO ${q(hiveVtx)} (FORMAT vortex, PARTITION_BY (part))`);
await conn.run(`COPY (SELECT *, (hash(amount) % 20)::BIGINT AS part FROM data) TO ${q(hiveParquet)} (FORMAT parquet, PARTITION_BY (part))`);
await conn.run(`CREATE TABLE hive_data AS SELECT *, (hash(amount) % 20)::BIGINT AS part FROM data`);

const AGGS = 'count(*), sum(amount), min(amount), max(amount), avg(amount)';
// The hive key twice: DuckDB's glob walks the directories twice for `**` (once to find them,
// once to match), once for `*/`; both formats pay the same glob.
const CASES = { 'day (clustered)': 'day', 'color (random, 8 strings)': 'color', 'day, color': 'day, color',
  'part (hive, 20 files, **)': 'part', 'part (hive, 20 files, */)': 'part', 'account (sorted, 4 rows a key)': 'account' };
const SORTED_AGGS = 'count(*), sum(amount), min(amount), max(amount)';
const sources = (keys, name) => {
  if (keys !== 'part') return { vtx: `vortex_scan(${q(vtx)})`, parquet: `read_parquet(${q(parquet)})`, table: 'data' };
  const glob = name.includes('**') ? '**' : '*';
  return { vtx: `vortex_scan(${q(`${hiveVtx}/${glob}/*.vtx`)})`, parquet: `read_parquet(${q(`${hiveParquet}/${glob}/*.parquet`)})`, table: 'hive_data' };
};
const out = [['key', 'pushed?', 'vtx (pushdown on)', 'pushdown off', 'parquet', 'duckdb table', 'SELECT 1', 'off/pushed', 'parquet/pushed', 'table/pushed', 'pushed/SELECT 1']];
const show = (r) => JSON.stringify(r.rows, (_, v) => (typeof v === 'bigint' ? String(v) : v));
for (const [name, keys] of Object.entries(CASES)) {
  const sql = keys === 'account'
    ? (from) => `SELECT ${keys}, ${SORTED_AGGS} FROM ${from} GROUP BY ${keys} HAVING sum(amount) > 3900000 ORDER BY ${keys}`
    : (from) => `SELECT ${keys}, ${AGGS} FROM ${from} GROUP BY ${keys} ORDER BY ${keys}`;
  await conn.run('SET vortex_pushdown = true');
  const src = sources(keys, name);
  const plan = (await conn.runAndReadAll(`EXPLAIN ${sql(src.vtx)}`)).getRowsJS().map((r) => r[1]).join('');
  const isPushed = plan.includes('Pushed Groups');
  // The pushed query in alternation with SELECT 1: for the hive key (about 1.5 ms, 31 rounds)
  // their ratio is the figure that matters.
  const [pushedMs, oneMs] = await timeInterleaved(conn, [sql(src.vtx), 'SELECT 1'], { runs: keys === 'part' ? Math.max(args.runs, 31) : args.runs });
  const pushed = { ms: pushedMs, rows: (await conn.runAndReadAll(sql(src.vtx))).getRowsJS() };
  const one = { ms: oneMs };
  await conn.run('SET vortex_pushdown = false');
  const off = await time(conn, sql(src.vtx), { runs: args.runs });
  await conn.run('SET vortex_pushdown = true');
  const pq = await time(conn, sql(src.parquet), { runs: args.runs });
  const tbl = await time(conn, sql(src.table), { runs: args.runs });
  if (show(pushed) !== show(off) || show(pushed) !== show(tbl)) throw new Error(`results differ for ${name}`);
  out.push([name, isPushed ? 'yes' : 'no (policy)', fmtMs(pushed.ms), fmtMs(off.ms), fmtMs(pq.ms), fmtMs(tbl.ms), fmtMs(one.ms),
    `${(off.ms / pushed.ms).toFixed(1)}x`, `${(pq.ms / pushed.ms).toFixed(1)}x`, `${(tbl.ms / pushed.ms).toFixed(2)}x`, (pushed.ms / one.ms).toFixed(1)]);
}
console.log(table(out));

// The hive key's latency against what DuckDB itself spends on such a query before any file is
// read: expanding the glob, and planning and running the same GROUP BY ... ORDER BY over a
// 20-row table. Their sum (less the one SELECT 1 both include) is the floor of any reader whose
// rows DuckDB groups and sorts; the pushed query goes below it since the grouped scan also
// takes the ORDER BY (native/duckdb/pushdown/grouped_order.cpp) and DuckDB's sort no longer runs.
await conn.run('SET vortex_pushdown = true');
await conn.run(`CREATE TABLE hive_tiny AS SELECT i::BIGINT AS part, i::BIGINT AS amount FROM range(20) r(i)`);
const floor = [['hive key', 'pushed', 'SELECT 1', 'glob() alone', '20-row table', 'floor', 'pushed/SELECT 1', 'floor/SELECT 1']];
const hiveRuns = Math.max(args.runs, 31);
for (const glob of ['**', '*']) {
  const pattern = q(`${hiveVtx}/${glob}/*.vtx`);
  const grouped = (from) => `SELECT part, ${AGGS} FROM ${from} GROUP BY part ORDER BY part`;
  const [pushed, one, globbed, tiny] = await timeInterleaved(conn, [grouped(`vortex_scan(${pattern})`), 'SELECT 1',
    `SELECT count(*) FROM glob(${pattern})`, grouped('hive_tiny')], { runs: hiveRuns });
  const least = globbed + tiny - one;
  floor.push([`${glob}/*.vtx`, fmtMs(pushed), fmtMs(one), fmtMs(globbed), fmtMs(tiny), fmtMs(least),
    (pushed / one).toFixed(2), (least / one).toFixed(2)]);
}
console.log(`\nhive key against DuckDB's own floor (medians of ${hiveRuns} rounds, the four queries in alternation):`);
console.log(table(floor));
