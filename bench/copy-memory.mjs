#!/usr/bin/env node
// COPY at scale: time and peak RSS of `COPY (...) TO (FORMAT vortex)` against `FORMAT parquet`,
// each in a fresh process (peak RSS is per process), alternating, over mixed columns including
// nested ones (a struct with a nested struct, a list, a map).
// With --from, the rows are a file's instead (a wide table: ClickBench's hits as bench/clickbench.mjs
// writes it), read by read_parquet for both writers.
//   node bench/copy-memory.mjs [--rows=50000000] [--runs=2] [--flat] [--from=bench/data/clickbench-10000000/hits.parquet]
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connect, dataDir, fmtBytes, machine, parseArgs, q, table } from './common.mjs';

const self = fileURLToPath(import.meta.url);

function source(rows, flat, from) {
  if (from) return `SELECT * FROM read_parquet(${q(from)})`;
  const nested = flat ? '' : `,
    CASE WHEN i % 50 = 0 THEN NULL ELSE {'user': 'u' || (hash(i) % 5000)::VARCHAR, 'score': (hash(i, 1) % 1000)::INTEGER,
      'geo': {'lat': (hash(i, 2) % 180000)::DOUBLE / 1000 - 90, 'lon': (hash(i, 3) % 360000)::DOUBLE / 1000 - 180}} END AS event,
    CASE WHEN i % 17 = 0 THEN NULL ELSE list_transform(range((hash(i, 4) % 4)::BIGINT), j -> (i + j)::INTEGER) END AS ids,
    map(['k' || (i % 3)::VARCHAR], [i % 100]) AS attrs`;
  return `SELECT i AS id, (hash(i) % 1000)::INTEGER AS small_int, (hash(i * 7) % 100000000)::DOUBLE / 1000 AS amount,
    ['alpha', 'beta', 'gamma', 'delta', 'epsilon'][1 + (hash(i * 3) % 5)::INTEGER] AS category, md5(i::VARCHAR) AS token,
    TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND AS ts${nested} FROM range(${rows}) r(i)`;
}

if (process.argv[2] === '--child') {
  const [, , , format, rows, flat, file, from] = process.argv;
  const { conn } = await connect();
  rmSync(file, { force: true });
  const t0 = performance.now();
  await conn.run(`COPY (${source(Number(rows), flat === 'flat', from)}) TO ${q(file)} (FORMAT ${format})`);
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS, bytes: statSync(file).size }));
  rmSync(file, { force: true });
  process.exit(0);
}

const args = parseArgs({ rows: 50_000_000, runs: 2, flat: false, from: '' });
console.log(args.from ? `# COPY time and peak RSS of ${args.from}; ${machine()}`
  : `# COPY time and peak RSS, ${args.rows.toLocaleString()} rows${args.flat ? ' (scalar columns only)' : ' (with nested columns)'}; ${machine()}`);
const dir = dataDir(`copy-memory-${args.rows}`);
const results = { vortex: [], parquet: [] };
for (let r = 0; r < args.runs; r++) {
  for (const format of ['vortex', 'parquet']) {
    const file = `${dir}/out.${format === 'vortex' ? 'vtx' : 'parquet'}`;
    const child = spawnSync(process.execPath, [self, '--child', format, String(args.rows), args.flat ? 'flat' : 'nested', file, args.from], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${format} COPY failed: ${child.stderr}`);
    results[format].push(JSON.parse(child.stdout.trim().split('\n').pop()));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (format) => ({
  ms: median(results[format].map((x) => x.ms)),
  rss: median(results[format].map((x) => x.maxRssKiB * 1024)),
  bytes: results[format][0].bytes,
});
const v = row('vortex'), p = row('parquet');
console.log(table([
  ['measure', '.vtx', 'parquet', 'parquet / vtx'],
  ['COPY time', `${(v.ms / 1000).toFixed(2)} s`, `${(p.ms / 1000).toFixed(2)} s`, (p.ms / v.ms).toFixed(2)],
  ['peak RSS', fmtBytes(v.rss), fmtBytes(p.rss), (p.rss / v.rss).toFixed(2)],
  ['file size', fmtBytes(v.bytes), fmtBytes(p.bytes), (p.bytes / v.bytes).toFixed(2)],
]));
console.log('(ratios above 1.00 favour .vtx; each COPY in a fresh process)');
