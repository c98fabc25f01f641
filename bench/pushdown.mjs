#!/usr/bin/env node
// Pushed aggregates vs the same query with pushdown off, vs DuckDB on the same data in
// Parquet and in a DuckDB table, vs SELECT 1 (DuckDB's per-query floor), at two sizes.
//   node bench/pushdown.mjs [--rows=50000000] [--small=5000000] [--runs=30]
import { rmSync } from 'node:fs';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table, time } from './common.mjs';

const args = parseArgs({ rows: 50_000_000, small: 5_000_000, runs: 30, slowRuns: 3 });
const { conn } = await connect();
console.log(`# pushdown benchmark; ${machine()}`);

const QUERIES = {
  BIGINT: 'count(*), count(x), sum(x), avg(x), min(x), max(x)',
  DOUBLE: 'count(*), count(d), sum(d), avg(d)',
  VARCHAR: 'count(*), count(s), min(s), max(s)',
};

const results = {};
for (const rows of [args.small, args.rows]) {
  const dir = dataDir(`pushdown-${rows}`);
  const vtx = `${dir}/data.vtx`, parquet = `${dir}/data.parquet`;
  await conn.run('DROP TABLE IF EXISTS data');
  await conn.run(`CREATE TABLE data AS SELECT (hash(i) % 1000000000)::BIGINT - 500000000 AS x,
      (hash(i * 3) % 100000)::DOUBLE / 7 AS d, 'k' || (hash(i * 5) % 100000) AS s FROM range(${rows}) r(i)`);
  rmSync(vtx, { force: true });
  rmSync(parquet, { force: true });
  await conn.run(`COPY data TO ${q(vtx)} (FORMAT vortex)`);
  await conn.run(`COPY data TO ${q(parquet)} (FORMAT parquet)`);
  results[rows] = {};
  for (const [type, aggs] of Object.entries(QUERIES)) {
    const sql = (from) => `SELECT ${aggs} FROM ${from}`;
    await conn.run('SET vortex_pushdown = true');
    const plan = (await conn.runAndReadAll(`EXPLAIN ${sql(`vortex_scan(${q(vtx)})`)}`)).getRowsJS().map((r) => r[1]).join('');
    if (!plan.includes('Pushed Aggregates')) throw new Error(`not pushed: ${sql('...')}`);
    const pushed = await time(conn, sql(`vortex_scan(${q(vtx)})`), { runs: args.runs, warmup: 3 });
    const one = await time(conn, 'SELECT 1', { runs: args.runs, warmup: 3 });
    await conn.run('SET vortex_pushdown = false');
    const off = await time(conn, sql(`vortex_scan(${q(vtx)})`), { runs: args.slowRuns });
    const pq = await time(conn, sql(`read_parquet(${q(parquet)})`), { runs: args.slowRuns });
    const tbl = await time(conn, sql('data'), { runs: args.slowRuns });
    await conn.run('SET vortex_pushdown = true');
    const show = (r) => JSON.stringify(r.rows, (_, v) => (typeof v === 'bigint' ? String(v) : v));
    if (type !== 'DOUBLE' && (show(pushed) !== show(off) || show(pushed) !== show(tbl))) {
      throw new Error(`results differ for ${type}: ${show(pushed)} / ${show(off)} / ${show(tbl)}`);
    }
    results[rows][type] = { pushed: pushed.ms, one: one.ms, off: off.ms, parquet: pq.ms, table: tbl.ms };
  }
}

const out = [['rows', 'column', 'pushed', 'SELECT 1', 'pushdown off', 'parquet', 'duckdb table', 'off/pushed', 'parquet/pushed', 'pushed/SELECT 1']];
for (const [rows, byType] of Object.entries(results)) {
  for (const [type, r] of Object.entries(byType)) {
    out.push([Number(rows).toLocaleString(), type, fmtMs(r.pushed), fmtMs(r.one), fmtMs(r.off), fmtMs(r.parquet), fmtMs(r.table),
      `${(r.off / r.pushed).toFixed(0)}x`, `${(r.parquet / r.pushed).toFixed(0)}x`, (r.pushed / r.one).toFixed(2)]);
  }
}
console.log(table(out));
for (const type of Object.keys(QUERIES)) {
  const ratio = results[args.rows][type].pushed / results[args.small][type].pushed;
  console.log(`${type}: ${(args.rows / args.small).toFixed(0)}x the rows costs ${ratio.toFixed(2)}x the pushed latency`);
}
