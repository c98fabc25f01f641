#!/usr/bin/env node
// The cost of exact float sums in plans that are not pushed (issue 55): sum/avg of a DOUBLE
// column over .vtx with vortex_exact_float_sums on (the exact aggregate) against off (DuckDB's
// own sum), both with pushdown off so that DuckDB's aggregate operator runs either way;
// ungrouped and at 1M groups, plus a window and widely spread values. Interleaved medians.
//   node bench/float-sums.mjs [--rows=10000000] [--runs=7]
import { rmSync } from 'node:fs';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table, timeInterleaved } from './common.mjs';

const args = parseArgs({ rows: 10_000_000, runs: 7 });
const { conn } = await connect();
console.log(`# exact float sums, ${args.rows.toLocaleString()} rows; ${machine()}`);
const dir = dataDir(`float-sums-${args.rows}`);
const vtx = `${dir}/sales.vtx`;
await conn.run(`CREATE TABLE sales AS SELECT i, (i % 1000000)::INTEGER AS g, (i % 5)::INTEGER AS r,
    (hash(i) % 10000000)::DOUBLE / 100 AS amount, ((hash(i * 3) % 2000000)::DOUBLE - 1000000) * 1e-3 AS delta,
    ((hash(i * 5) % 2000000)::DOUBLE - 1e6) * pow(10, (hash(i * 7) % 600)::INTEGER - 300) AS spread
  FROM range(${args.rows}) t(i)`);
rmSync(vtx, { force: true });
await conn.run(`COPY sales TO ${q(vtx)} (FORMAT vortex)`);
const f = `read_vortex(${q(vtx)})`;
const CASES = {
  'ungrouped sum, avg': `SELECT sum(amount), avg(amount), sum(delta) FROM ${f}`,
  '5 groups': `SELECT r, sum(amount), avg(delta) FROM ${f} GROUP BY r`,
  '1M groups': `SELECT g, sum(amount), avg(delta) FROM ${f} GROUP BY g`,
  // Values over 600 decimal orders: wider than the state's 128-bit integer, so most are spilled.
  'ungrouped, values spread over 600 decimal orders': `SELECT sum(spread) FROM ${f}`,
  'running sum (window), 1M rows': `SELECT max(s) FROM (SELECT sum(amount) OVER (ORDER BY i ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW) s FROM ${f} WHERE i < 1000000)`,
};
await conn.run('SET vortex_pushdown = false');
const out = [['query', 'exact', "DuckDB's sum", 'exact / DuckDB']];
for (const [name, sql] of Object.entries(CASES)) {
  const t = { on: [], off: [] };
  for (let r = 0; r < args.runs; r++) {
    await conn.run('SET vortex_exact_float_sums = true');
    t.on.push((await timeInterleaved(conn, [sql], { runs: 1, warmup: r === 0 ? 1 : 0 }))[0]);
    await conn.run('SET vortex_exact_float_sums = false');
    t.off.push((await timeInterleaved(conn, [sql], { runs: 1, warmup: r === 0 ? 1 : 0 }))[0]);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  out.push([name, fmtMs(med(t.on)), fmtMs(med(t.off)), (med(t.on) / med(t.off)).toFixed(2)]);
}
console.log(table(out));
