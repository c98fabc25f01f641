#!/usr/bin/env node
// .vtx vs Parquet (DuckDB's defaults) on the same data, side by side in one process:
// file size, COPY time, a full scan reading every value, and a selective filtered query.
//   node bench/format.mjs [--rows=50000000] [--runs=3]
import { rmSync } from 'node:fs';
import { connect, dataDir, dataSql, fileSize, fmtBytes, fmtMs, machine, parseArgs, q, table, time, timeOnce } from './common.mjs';

const args = parseArgs({ rows: 50_000_000, runs: 3 });
const dir = dataDir(`format-${args.rows}`);
const { conn } = await connect();
console.log(`# format benchmark: ${args.rows.toLocaleString()} rows; ${machine()}`);

await conn.run(`CREATE TABLE data AS ${dataSql(args.rows)}`);
const vtx = `${dir}/data.vtx`;
const parquet = `${dir}/data.parquet`;
rmSync(vtx, { force: true });
rmSync(parquet, { force: true });

const copyVtx = await timeOnce(conn, `COPY data TO ${q(vtx)} (FORMAT vortex)`);
const copyParquet = await timeOnce(conn, `COPY data TO ${q(parquet)} (FORMAT parquet)`);

const full = (from) => `SELECT sum(hash(id, run_int, small_int, amount, category, token, ts)) FROM ${from}`;
const selective = (from) => `SELECT count(*), sum(amount), max(token) FROM ${from} WHERE id BETWEEN ${Math.floor(args.rows / 2)} AND ${Math.floor(args.rows / 2) + 100_000}`;
const scanV = `vortex_scan(${q(vtx)})`;
const scanP = `read_parquet(${q(parquet)})`;

const fullV = await time(conn, full(scanV), { runs: args.runs });
const fullP = await time(conn, full(scanP), { runs: args.runs });
if (JSON.stringify(fullV.rows, (_, v) => String(v)) !== JSON.stringify(fullP.rows, (_, v) => String(v))) throw new Error('full scans disagree');
const selV = await time(conn, selective(scanV), { runs: args.runs });
const selP = await time(conn, selective(scanP), { runs: args.runs });

const sv = fileSize(vtx), sp = fileSize(parquet);
console.log(table([
  ['measure', '.vtx', 'parquet', 'parquet / vtx'],
  ['file size', fmtBytes(sv), fmtBytes(sp), (sp / sv).toFixed(2)],
  ['COPY TO', fmtMs(copyVtx), fmtMs(copyParquet), (copyParquet / copyVtx).toFixed(2)],
  ['full scan', fmtMs(fullV.ms), fmtMs(fullP.ms), (fullP.ms / fullV.ms).toFixed(2)],
  ['selective filter', fmtMs(selV.ms), fmtMs(selP.ms), (selP.ms / selV.ms).toFixed(2)],
]));
console.log('(ratios above 1.00 favour .vtx)');
