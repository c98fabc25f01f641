#!/usr/bin/env node
// Decode speed per column type: .vtx vs Parquet (DuckDB's defaults), one column per file,
// `SELECT max(c), min(c), count(c)` with pushdown off so both formats decode every value.
// Also COPY time and file size per type. Scans are interleaved (vtx, parquet, vtx, ...) and
// the median of --runs is reported, because the machine is shared.
//   node bench/types.mjs [--rows=20000000] [--runs=7] [--only=bigint_rand62,bool] [--threads=0]
import { rmSync } from 'node:fs';
import { connect, dataDir, fileSize, fmtBytes, fmtMs, machine, parseArgs, q, table, timeOnce } from './common.mjs';

const args = parseArgs({ rows: 20_000_000, runs: 7, only: '', threads: 0, table: true });

export const TYPES = [
  ['bigint_seq', 'BIGINT sequential', 'i::BIGINT'],
  ['int_hash1000', 'INTEGER hash(i) % 1000', '(hash(i) % 1000)::INTEGER'],
  ['bigint_rand62', 'BIGINT random 62-bit', '(hash(i) >> 2)::BIGINT'],
  ['double_price', 'DOUBLE price, 2 decimals', '((hash(i * 7) % 1000000) / 100)::DOUBLE'],
  ['float_sensor', 'FLOAT sensor, smooth', 'round(20 + 5 * sin(i / 5000) + (hash(i) % 100) / 1000, 2)::FLOAT'],
  ['double_div7', 'DOUBLE x / 7.0', '(hash(i * 3) % 100000)::DOUBLE / 7.0'],
  ['varchar_31', 'VARCHAR 31 values', "'value_' || (hash(i * 5) % 31)"],
  ['varchar_md5', 'VARCHAR md5', 'md5(i::VARCHAR)'],
  ['ts_second', 'TIMESTAMP per second', "TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND"],
  ['decimal_10_2', 'DECIMAL(10,2)', '((hash(i * 11) % 10000000000) / 100)::DECIMAL(10,2)'],
  ['bool', 'BOOLEAN', 'hash(i * 13) % 2 = 0'],
];

const only = args.only ? new Set(args.only.split(',')) : null;
const { conn } = await connect();
if (args.threads) await conn.run(`SET threads = ${args.threads}`);
await conn.run('SET vortex_pushdown = false');
const dir = dataDir(`types-${args.rows}`);
console.log(`# types benchmark: ${args.rows.toLocaleString()} rows, ${args.runs} interleaved runs; ${machine()}`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function once(sql) {
  const start = process.hrtime.bigint();
  const r = await conn.runAndReadAll(sql);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, rows: JSON.stringify(r.getRowsJS(), (_, v) => String(v)) };
}

const rows = [['type', 'vtx scan', 'parquet scan', 'table scan', 'scan ratio', 'vtx size', 'parquet size', 'vtx COPY', 'parquet COPY', 'encodings']];
const ratios = [];
for (const [key, label, expr] of TYPES) {
  if (only && !only.has(key)) continue;
  await conn.run('DROP TABLE IF EXISTS t');
  await conn.run(`CREATE TABLE t AS SELECT ${expr} AS c FROM range(${args.rows}) r(i)`);
  const vtx = `${dir}/${key}.vtx`, pq = `${dir}/${key}.parquet`;
  rmSync(vtx, { force: true });
  rmSync(pq, { force: true });
  const copyV = await timeOnce(conn, `COPY t TO ${q(vtx)} (FORMAT vortex)`);
  const copyP = await timeOnce(conn, `COPY t TO ${q(pq)} (FORMAT parquet)`);
  const sql = (from) => `SELECT max(c), min(c), count(c) FROM ${from}`;
  const sv = sql(`vortex_scan(${q(vtx)})`), sp = sql(`read_parquet(${q(pq)})`), st = sql('t');
  const wv = await once(sv), wp = await once(sp);
  if (wv.rows !== wp.rows) throw new Error(`${key}: .vtx and Parquet disagree: ${wv.rows} vs ${wp.rows}`);
  const tv = [], tp = [], tt = [];
  for (let r = 0; r < args.runs; r++) {
    tv.push((await once(sv)).ms);
    tp.push((await once(sp)).ms);
    if (args.table) tt.push((await once(st)).ms);
  }
  const encs = (await conn.runAndReadAll(`SELECT string_agg(DISTINCT encoding || coalesce('/' || codec, ''), ' ') FROM vortex_metadata(${q(vtx)})`).catch(() => null))?.getRowsJS()?.[0]?.[0] ?? '';
  const mv = median(tv), mp = median(tp);
  ratios.push(mp / mv);
  rows.push([label, fmtMs(mv), fmtMs(mp), args.table ? fmtMs(median(tt)) : '-', (mp / mv).toFixed(2), fmtBytes(fileSize(vtx)), fmtBytes(fileSize(pq)),
    fmtMs(copyV), fmtMs(copyP), encs]);
  console.error(`${key}: vtx ${tv.map((x) => x.toFixed(0)).join(' ')} | parquet ${tp.map((x) => x.toFixed(0)).join(' ')}`);
}
console.log(table(rows));
const geomean = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length);
console.log(`geometric mean of scan ratios (parquet / vtx): ${geomean.toFixed(2)}; min ${Math.min(...ratios).toFixed(2)}`);
