// .vtx and Parquet on the simulated object store (native/duckdb/io/sim_store.hpp, issue 58,
// acceptance 1's shape): local files served under simstore:// as httpfs serves S3, every request
// costing --latency ms plus its bytes at --bandwidth MB/s per stream. For each query: requests
// (HEAD/GET/LIST), bytes and wall time, cold (a fresh database: no cache but the process's) and
// warm (the same query again on it), at each thread count.
// node bench/remote.mjs [--rows=2000000] [--files=50] [--latency=30] [--bandwidth=100] [--threads=1,2,8] [--only=one|hive] [--whole=SIZE]
// (--only: the one-file queries or the many-file ones alone; --whole: vortex_remote_whole_file_size)
import { DuckDBInstance, version } from '@duckdb/node-api';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { registerVortex } from '../dist/index.js';
import { connectionHandle } from '../dist/connection.js';
import { loadAddon } from '../dist/native.js';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table } from './common.mjs';

const args = parseArgs({ rows: 2_000_000, files: 50, latency: 30, bandwidth: 100, threads: '1,2,8', only: 'all', whole: '0' });
const hooks = loadAddon(version()).__test;
const dir = dataDir(`remote-${args.rows}-${args.files}`);

const data = (rows, from = 0) => `SELECT i AS id, (hash(i) % 100000)::BIGINT AS user_id,
    ['eu-west', 'eu-north', 'us-east', 'us-west', 'ap-south', 'ap-east', 'sa-east', 'af-south'][1 + (hash(i * 3) % 8)::INTEGER] AS region,
    (hash(i * 7) % 100000)::DOUBLE / 100 AS latency,
    TIMESTAMP '2026-01-01' + INTERVAL (i) SECOND AS ts,
    md5(i::VARCHAR) AS token
  FROM range(${from}, ${from + rows}) r(i)`;

{
  const { conn } = await connect();
  for (const fmt of ['vtx', 'parquet']) {
    const file = join(dir, `one.${fmt}`);
    if (!existsSync(file)) await conn.run(`COPY (${data(args.rows)}) TO ${q(file)} (FORMAT ${fmt === 'vtx' ? 'vortex' : 'parquet'})`);
    const per = Math.ceil(args.rows / args.files);
    for (let p = 0; p < args.files; p++) {
      const part = join(dir, 'hive', `part=${p}`);
      mkdirSync(part, { recursive: true });
      const f = join(part, `f.${fmt}`);
      if (!existsSync(f)) await conn.run(`COPY (${data(per, p * per)}) TO ${q(f)} (FORMAT ${fmt === 'vtx' ? 'vortex' : 'parquet'})`);
    }
  }
}

const scan = (fmt, what) =>
  `${fmt === 'vtx' ? 'vortex_scan' : 'read_parquet'}(${q(`simstore://${what === 'one' ? join(dir, `one.${fmt}`) : join(dir, 'hive', `**/*.${fmt}`)}`)}${what === 'one' ? '' : ', hive_partitioning = true'})`;
const QUERIES = [
  ['count', 'one', (t) => `SELECT count(*) FROM ${t}`],
  ['stats aggregates', 'one', (t) => `SELECT min(id), max(id), sum(user_id) FROM ${t}`],
  ['filtered sum', 'one', (t) => `SELECT sum(latency) FROM ${t} WHERE region = 'eu-west'`],
  ['GROUP BY', 'one', (t) => `SELECT region, sum(latency), count(*) FROM ${t} GROUP BY region ORDER BY region`],
  ['time buckets', 'one', (t) => `SELECT date_trunc('hour', ts) AS h, count(*) FROM ${t} GROUP BY h ORDER BY h LIMIT 5`],
  ['Top-N', 'one', (t) => `SELECT id, latency FROM ${t} ORDER BY latency DESC, id LIMIT 10`],
  ['point lookup', 'one', (t) => `SELECT * FROM ${t} WHERE id = ${Math.floor(args.rows * 0.6)}`],
  ['count(DISTINCT)', 'one', (t) => `SELECT count(DISTINCT user_id) FROM ${t}`],
  ['SELECT * selective', 'one', (t) => `SELECT * FROM ${t} WHERE user_id = 12345 ORDER BY id`],
  [`count, ${args.files} files`, 'hive', (t) => `SELECT count(*) FROM ${t}`],
  [`GROUP BY, ${args.files} files`, 'hive', (t) => `SELECT region, sum(latency) FROM ${t} GROUP BY region ORDER BY region`],
];

async function storeDb(threads) {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await instance.connect();
  await registerVortex(conn);
  const h = connectionHandle(conn, 'bench');
  hooks.enableSimStore(h, { latencyMs: args.latency, bandwidthMBps: args.bandwidth });
  if (String(args.whole) !== '0') await conn.run(`SET vortex_remote_whole_file_size = ${q(String(args.whole))}`);
  return { conn, h };
}

async function run(conn, h, sql) {
  hooks.resetSimStore(h);
  const start = process.hrtime.bigint();
  const r = await conn.runAndReadAll(sql);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ms, counts: hooks.simStoreStats(h), rows: JSON.stringify(r.getRowsJS(), same) };
}

/** Answers compared across formats: doubles to 9 digits (.vtx sums floats exactly, DuckDB in its own order). */
const same = (_, v) => (typeof v === 'bigint' ? String(v) : typeof v === 'number' ? Number(v.toPrecision(9)) : v);
const fmtBytes = (n) => (n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);
const fmtReq = ({ head, get, list }) => `${head}/${get}/${list}`;
console.log(`# remote: ${args.rows.toLocaleString()} rows in one file and in ${args.files} hive files, simulated store at ${args.latency} ms a request and ${args.bandwidth} MB/s a stream; vortex_remote_whole_file_size ${args.whole}; ${machine()}`);
console.log('requests as HEAD/GET/LIST; cold: a fresh database; warm: the same query again on it\n');
for (const threads of String(args.threads).split(',').map(Number)) {
  const out = [['query', 'vtx cold', 'bytes', 'time', 'vtx warm', 'bytes', 'time', 'parquet cold', 'bytes', 'time', 'parquet warm', 'bytes', 'time']];
  for (const [name, what, sql] of QUERIES) {
    if (args.only !== 'all' && args.only !== what) continue;
    const row = [name];
    const answers = [];
    for (const fmt of ['vtx', 'parquet']) {
      const { conn, h } = await storeDb(threads);
      for (const pass of ['cold', 'warm']) {
        const r = await run(conn, h, sql(scan(fmt, what)));
        answers.push(r.rows);
        row.push(fmtReq(r.counts), fmtBytes(r.counts.bytes), fmtMs(r.ms));
      }
      conn.closeSync?.();
    }
    if (new Set(answers).size !== 1) row[0] += ' (answers differ!)';
    out.push(row);
  }
  console.log(`## ${threads} thread${threads === 1 ? '' : 's'}\n`);
  console.log(table(out));
  console.log();
}
