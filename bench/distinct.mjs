#!/usr/bin/env node
// Distinct counts, pushed against the same query with every vortex cleverness off and against
// Parquet (issue 54's table): high-cardinality short strings, mid-cardinality long strings,
// clustered and random integers, ungrouped, grouped, filtered and bucketed.
//   node bench/distinct.mjs [--rows=10000000] [--runs=5] [--only=<part of a name>]
import { rmSync } from 'node:fs';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table, timeInterleaved } from './common.mjs';

const args = parseArgs({ rows: 10_000_000, runs: 5, only: '' });
const { conn } = await connect();
console.log(`# distinct-count benchmark, ${args.rows.toLocaleString()} rows; ${machine()}`);

const dir = dataDir(`distinct-${args.rows}`);
const vtx = `${dir}/t.vtx`, parquet = `${dir}/t.parquet`;
await conn.run(`CREATE TABLE t AS SELECT
    'u' || (hash(i) % 2000000)::VARCHAR AS usr,
    'https://www.example.com/section/' || (hash(i * 3) % 5000)::VARCHAR || '/article-about-something-long' AS url,
    (i // 1000)::INTEGER AS cl,
    (hash(i * 5) % 1000000)::BIGINT AS rnd,
    DATE '2024-01-01' + (i * 60 // ${args.rows})::INTEGER AS day,
    TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND AS ts
  FROM range(${args.rows}) r(i)`);
for (const f of [vtx, parquet]) rmSync(f, { force: true });
await conn.run(`COPY t TO ${q(vtx)} (FORMAT vortex)`);
await conn.run(`COPY t TO ${q(parquet)} (FORMAT parquet)`);

const CASES = {
  'count(DISTINCT usr)': (f) => `SELECT count(DISTINCT usr) FROM ${f}`,
  'day, count(DISTINCT usr)': (f) => `SELECT day, count(DISTINCT usr) FROM ${f} GROUP BY day ORDER BY day`,
  'count(DISTINCT url)': (f) => `SELECT count(DISTINCT url) FROM ${f}`,
  'count(DISTINCT cl)': (f) => `SELECT count(DISTINCT cl) FROM ${f}`,
  'count(DISTINCT rnd)': (f) => `SELECT count(DISTINCT rnd) FROM ${f}`,
  'count(DISTINCT day) range filter': (f) => `SELECT count(DISTINCT day) FROM ${f} WHERE cl BETWEEN 100 AND ${Math.floor(args.rows / 2000)}`,
  "date_trunc('hour'), count(DISTINCT url)": (f) => `SELECT date_trunc('hour', ts) AS h, count(*), count(DISTINCT url) FROM ${f} GROUP BY h ORDER BY h`,
  'count(DISTINCT day)': (f) => `SELECT count(DISTINCT day) FROM ${f}`,
};

const OFF = ['SET vortex_pushdown = false', 'SET vortex_pushdown_expressions = false'];
const ON = ['SET vortex_pushdown = true', 'SET vortex_pushdown_expressions = true'];
const show = (rows) => JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? String(v) : v));
const out = [['query', 'pushed?', 'pushed', 'off', 'parquet', 'pushed/off', 'pushed/parquet']];
let slower = 0;
for (const [name, sql] of Object.entries(CASES).filter(([n]) => n.includes(args.only))) {
  const v = sql(`vortex_scan(${q(vtx)})`), p = sql(`read_parquet(${q(parquet)})`);
  const plan = (await conn.runAndReadAll(`EXPLAIN ${v}`)).getRowsJS().map((r) => r[1]).join('');
  const pushed = /Pushed Aggregates|Pushed Groups|VORTEX_GROUPED|VORTEX_AGGREGATE/i.test(plan);
  const reason = /Not Pushed[^\n]*\n?[^\n]*/.exec(plan)?.[0]?.replace(/\s+/g, ' ') ?? '';
  const onRows = show((await conn.runAndReadAll(v)).getRowsJS());
  for (const s of OFF) await conn.run(s);
  const offRows = show((await conn.runAndReadAll(v)).getRowsJS());
  for (const s of ON) await conn.run(s);
  if (onRows !== offRows) throw new Error(`results differ for ${name}`);
  // Interleaved: pushed, off (settings switched around it), Parquet.
  const t = { on: [], off: [], pq: [] };
  for (let r = 0; r < args.runs; r++) {
    t.on.push((await timeInterleaved(conn, [v], { runs: 1, warmup: r === 0 ? 1 : 0 }))[0]);
    for (const s of OFF) await conn.run(s);
    t.off.push((await timeInterleaved(conn, [v], { runs: 1, warmup: r === 0 ? 1 : 0 }))[0]);
    for (const s of ON) await conn.run(s);
    t.pq.push((await timeInterleaved(conn, [p], { runs: 1, warmup: r === 0 ? 1 : 0 }))[0]);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [on, off, pq] = [med(t.on), med(t.off), med(t.pq)];
  if (on > 1.2 * off + 2) slower++;
  out.push([name, pushed ? 'yes' : `no ${reason}`.slice(0, 60), fmtMs(on), fmtMs(off), fmtMs(pq), (on / off).toFixed(2), (on / pq).toFixed(2)]);
}
console.log(table(out));
console.log(`\npushed slower than 1.2 x off + 2 ms: ${slower}`);
