#!/usr/bin/env node
// Aggregates under WHERE, and Top-N: pushed (filters in the scan, aggregates from zones) vs the
// same query with vortex_pushdown=false (filters still in the scan, aggregate in DuckDB) vs
// DuckDB on the same data in Parquet. Runs are interleaved (one of each per round); medians.
//   node bench/filtered.mjs [--rows=50000000] [--runs=7] [--write=true]
// Writes its table into bench/RESULTS.md (section "Filtered aggregates") unless --write=false.
import { readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, connect, dataDir, fmtMs, machine, parseArgs, q, table } from './common.mjs';

const args = parseArgs({ rows: 50_000_000, runs: 7, write: true });
const { conn } = await connect();
const n = args.rows;
console.log(`# filtered aggregates benchmark, ${n.toLocaleString()} rows; ${machine()}`);

const dir = dataDir(`filtered-${n}`);
const vtx = `${dir}/data.vtx`, parquet = `${dir}/data.parquet`;
if (!existsSync(vtx) || !existsSync(parquet)) {
  await conn.run(`CREATE TABLE data AS SELECT i AS ts, (hash(i) % 1000000)::BIGINT AS u,
      (hash(i * 3) % 100000)::DOUBLE / 100 AS amount, ['eu', 'us', 'ap'][1 + (hash(i * 5) % 3)::INTEGER] AS region
    FROM range(${n}) r(i)`);
  rmSync(vtx, { force: true });
  rmSync(parquet, { force: true });
  await conn.run(`COPY data TO ${q(vtx)} (FORMAT vortex)`);
  await conn.run(`COPY data TO ${q(parquet)} (FORMAT parquet)`);
  await conn.run('DROP TABLE data');
}

const AGGS = 'count(*), sum(amount), max(u), min(ts)';
const CASES = [
  { name: 'sorted 1%', where: `ts >= ${Math.floor(n * 0.99)}` },
  { name: 'sorted 50%', where: `ts >= ${Math.floor(n * 0.5)}` },
  { name: 'sorted 99%', where: `ts >= ${Math.floor(n * 0.01)}` },
  { name: 'unsorted 50%', where: 'u < 500000' },
  { name: 'string = (dict)', where: "region = 'eu'" },
  { name: 'Top-N', topn: true },
];

const sqlOf = (c, from) => (c.topn ? `SELECT * FROM ${from} ORDER BY ts DESC LIMIT 10` : `SELECT ${AGGS} FROM ${from} WHERE ${c.where}`);
const MODES = {
  pushed: { setting: true, from: `vortex_scan(${q(vtx)})` },
  off: { setting: false, from: `vortex_scan(${q(vtx)})` },
  parquet: { setting: true, from: `read_parquet(${q(parquet)})` },
};

async function once(sql) {
  const start = process.hrtime.bigint();
  const r = await conn.runAndReadAll(sql);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, rows: r.getRowsJS() };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Float sums depend on summation order (DuckDB's own answer varies with its threads): 9 digits.
const show = (r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : typeof v === 'number' ? Number(v.toPrecision(9)) : v));

const results = [];
for (const c of CASES) {
  await conn.run('SET vortex_pushdown = true');
  const plan = (await conn.runAndReadAll(`EXPLAIN ${sqlOf(c, MODES.pushed.from)}`)).getRowsJS().map((r) => r[1]).join('');
  if (!c.topn && !plan.includes('Pushed Aggregates')) throw new Error(`not pushed: ${c.name}\n${plan}`);
  const times = { pushed: [], off: [], parquet: [] };
  const answers = {};
  for (let round = 0; round < args.runs + 1; round++) {
    for (const [mode, m] of Object.entries(MODES)) {
      await conn.run(`SET vortex_pushdown = ${m.setting}`);
      const r = await once(sqlOf(c, m.from));
      if (round > 0) times[mode].push(r.ms); // round 0 warms up
      answers[mode] = show(r.rows);
    }
  }
  if (answers.pushed !== answers.off || answers.pushed !== answers.parquet) {
    throw new Error(`answers differ for ${c.name}: ${answers.pushed} / ${answers.off} / ${answers.parquet}`);
  }
  const r = { name: c.name, pushed: median(times.pushed), off: median(times.off), parquet: median(times.parquet) };
  results.push(r);
  console.log(`${r.name}: pushed ${fmtMs(r.pushed)}, off ${fmtMs(r.off)}, parquet ${fmtMs(r.parquet)}`);
}
await conn.run('SET vortex_pushdown = true');

const out = [['query', 'pushed', 'pushdown off', 'parquet', 'off/pushed', 'parquet/pushed']];
for (const r of results) {
  out.push([r.name, fmtMs(r.pushed), fmtMs(r.off), fmtMs(r.parquet), `${(r.off / r.pushed).toFixed(2)}x`, `${(r.parquet / r.pushed).toFixed(2)}x`]);
}
const text = table(out);
console.log(text);

if (args.write) {
  const file = join(benchDir, 'RESULTS.md');
  const begin = '<!-- filtered:begin -->', end = '<!-- filtered:end -->';
  const section = `${begin}
## Filtered aggregates and Top-N — \`node bench/filtered.mjs --rows=${n}\`

Machine: ${machine()} (2 cores shared with other work: absolute figures are indicative, ratios
are side by side). Data: ${n.toLocaleString()} rows of \`ts BIGINT\` (sorted), \`u BIGINT\`
(unsorted, 0..999999), \`amount DOUBLE\`, \`region VARCHAR\`, in one \`.vtx\` file (default zones
of 122,880 rows) and in Parquet (DuckDB defaults). Aggregates: \`${AGGS}\`; Top-N:
\`SELECT * ... ORDER BY ts DESC LIMIT 10\`. Medians of ${args.runs} interleaved runs after one warm-up.
"pushed" = filters in the scan and aggregates answered from zones; "pushdown off" =
\`SET vortex_pushdown = false\` (filters still in the scan, aggregate computed by DuckDB).

\`\`\`
${text}
\`\`\`
${end}`;
  let md = readFileSync(file, 'utf8');
  const a = md.indexOf(begin), b = md.indexOf(end);
  md = a >= 0 && b > a ? md.slice(0, a) + section + md.slice(b + end.length) : `${md.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, md);
  console.log(`written to ${file}`);
}
