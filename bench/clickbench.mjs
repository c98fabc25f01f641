#!/usr/bin/env node
// ClickBench's 43 queries (issue 57) over a generated, ClickBench-shaped `hits` table: .vtx with
// pushdown on, .vtx with pushdown off, Parquet and the DuckDB table, side by side in one process.
//   node bench/clickbench.mjs [--rows=10000000] [--runs=3] [--only=q23,q28] [--reuse] [--copy-runs=2]
// The table and the queries' texts are read from ../shared/clickbench (CLICKBENCH_DIR) at run time:
// their licence is not ours. The rows are our own (bench/clickbench-table.mjs: hash-based SQL over
// range(N), the same rows every run). hits.vtx and hits.parquet are written from the same DuckDB
// table (COPY timed: the faster of --copy-runs=2, each format going first once; more runs, their median); --reuse keeps the files of an
// earlier run of the same size (the table is generated again either way).
// Each source is a schema holding `hits` (a view over vortex_scan / read_parquet, or the table),
// chosen by search_path, so the query texts run unchanged. Each query runs once per source as a
// warm-up whose answer is checked (the check form: its ORDER BY keys appended as columns, so that
// tied rows are visible), then --runs times per source, interleaved, each round starting with the
// next source; the median is reported. Answers are compared with the table's up to tied rows
// (clickbench-table.mjs compareAnswers); any difference is printed and counted, exit code 1.
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchDir, connect, dataDir, fileSize, fmtMs, machine, parseArgs, q, timeCopies } from './common.mjs';
import { answerOf, checkForm, createHits, judgeAnswers, missingRows, readQueries } from './clickbench-table.mjs';
import { fmtSize, md, median, x } from './suite.mjs';

const args = parseArgs({ rows: 10_000_000, runs: 3, only: '', reuse: false, copyRuns: 2 });
const cbDir = resolve(benchDir, '..', process.env.CLICKBENCH_DIR ?? '../shared/clickbench');
if (!existsSync(join(cbDir, 'create.sql'))) throw new Error(`${cbDir}/create.sql not found (set CLICKBENCH_DIR)`);
const only = args.only ? args.only.split(',').map((s) => `q${String(Number(s.trim().replace(/^q/i, ''))).padStart(2, '0')}`) : null;
const QUERIES = readQueries(cbDir).filter((qq) => !only || only.includes(qq.name));
if (only && QUERIES.length !== only.length) throw new Error(`--only: no such query among ${only.join(', ')}`);

const { conn } = await connect();
const threads = (await conn.runAndReadAll("SELECT current_setting('threads')")).getRowsJS()[0][0];
console.log(`# ClickBench-shaped hits, ${args.rows.toLocaleString()} rows, ${QUERIES.length} queries, ${args.runs} runs (medians after one checked warm-up run; the four sources interleaved, each round starting with the next); ${threads} DuckDB threads; ${machine()}\n`);

const genStart = process.hrtime.bigint();
await createHits(conn, cbDir, args.rows);
const genMs = Number(process.hrtime.bigint() - genStart) / 1e6;
console.log(`generated the table in ${fmtMs(genMs)}`);

const dir = dataDir(`clickbench-${args.rows}`);
const vtx = join(dir, 'hits.vtx'), parquet = join(dir, 'hits.parquet');
let copied = null;
if (!args.reuse || !existsSync(vtx) || !existsSync(parquet)) {
  for (const f of [vtx, parquet]) rmSync(f, { force: true });
  copied = await timeCopies(conn, {
    vortex: [`COPY hits TO ${q(vtx)} (FORMAT vortex)`, vtx],
    parquet: [`COPY hits TO ${q(parquet)} (FORMAT parquet)`, parquet],
  }, Math.max(1, args.copyRuns));
}
const vb = fileSize(vtx), pb = fileSize(parquet);
const copyLine = copied
  ? `COPY (${args.copyRuns === 2 ? 'faster of 2' : `median of ${Math.max(1, args.copyRuns)}`}): .vtx ${fmtMs(copied.vortex)}, Parquet ${fmtMs(copied.parquet)} (.vtx ${x(copied.parquet / copied.vortex)} Parquet's speed); `
  : 'COPY: files reused (--reuse), not timed; ';
const sizeLine = `sizes: .vtx ${fmtSize(vb)}, Parquet ${fmtSize(pb)} (.vtx ÷ Parquet ${(vb / pb).toFixed(2)})`;
console.log(`${copyLine}${sizeLine}\n`);

await conn.run('CREATE SCHEMA vtx');
await conn.run('CREATE SCHEMA pq');
await conn.run(`CREATE VIEW vtx.hits AS SELECT * FROM vortex_scan(${q(vtx)})`);
await conn.run(`CREATE VIEW pq.hits AS SELECT * FROM read_parquet(${q(parquet)})`);
const pushdown = (on) => [`SET vortex_pushdown = ${on}`, `SET vortex_pushdown_expressions = ${on}`];
const SOURCES = [
  { key: 'on', label: 'vtx', setup: ["SET search_path = 'vtx'", ...pushdown(true)] },
  { key: 'off', label: 'vtx pushdown off', setup: ["SET search_path = 'vtx'", ...pushdown(false)] },
  { key: 'parquet', label: 'parquet', setup: ["SET search_path = 'pq'", ...pushdown(true)] },
  { key: 'table', label: 'duckdb table', setup: ["SET search_path = 'main'", ...pushdown(true)] },
];
async function runOn(src, sql) {
  for (const s of src.setup) await conn.run(s);
  const start = process.hrtime.bigint();
  const result = await conn.runAndReadAll(sql);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}
const table = SOURCES.find((s) => s.key === 'table');
const onTable = async (fn) => {
  for (const s of table.setup) await conn.run(s);
  return fn();
};

const out = [['query', 'pushed?', 'vtx', 'vtx off', 'parquet', 'table', 'vtx÷parquet', 'vtx÷table', 'slower than', 'answers']];
const ratios = { parquet: [], table: [], off: [] };
const totals = { on: 0, off: 0, parquet: 0, table: 0 };
const slower = { parquet: [], table: [] };
const wrong = [];
for (const { name, sql } of QUERIES) {
  const form = checkForm(sql);
  for (const s of SOURCES[0].setup) await conn.run(s);
  const plan = (await conn.runAndReadAll(`EXPLAIN ${sql}`)).getRowsJS().map((r) => r[1]).join('');
  const pushed = /Pushed (Aggregates|Groups|Order)/.test(plan);
  // Warm-up: the check form on every source, whose answers are compared.
  const checked = {};
  for (const src of SOURCES) checked[src.key] = answerOf((await runOn(src, form.check)).result);
  const times = Object.fromEntries(SOURCES.map((s) => [s.key, []]));
  const last = {};
  for (let i = 0; i < args.runs; i++) {
    for (let k = 0; k < SOURCES.length; k++) {
      const src = SOURCES[(i + k) % SOURCES.length];
      const r = await runOn(src, sql);
      times[src.key].push(r.ms);
      last[src.key] = answerOf(r.result);
    }
  }
  const ms = Object.fromEntries(SOURCES.map((s) => [s.key, median(times[s.key])]));
  for (const k of Object.keys(totals)) totals[k] += ms[k];
  ratios.parquet.push(ms.parquet / ms.on);
  ratios.table.push(ms.table / ms.on);
  ratios.off.push(ms.off / ms.on);
  const marks = [];
  if (ms.on > ms.parquet) { marks.push('parquet'); slower.parquet.push(`${name} ${x(ms.on / ms.parquet)}`); }
  if (ms.on > ms.table) { marks.push('table'); slower.table.push(`${name} ${x(ms.on / ms.table)}`); }

  const notes = [];
  for (const src of SOURCES.filter((s) => s.key !== 'table')) {
    const status = await onTable(() => judgeAnswers(form, { ref: checked.table, got: checked[src.key] }, { ref: last.table, got: last[src.key] },
      (rows) => missingRows(conn, form.full, checked[src.key].types, rows)));
    if (status !== 'same') notes.push(`${src.key}: ${status}`);
    if (status.startsWith('DIFFERS')) {
      wrong.push(`${name} on ${src.label}: ${status}`);
      console.log(`!!! WRONG ANSWER ${name} on ${src.label}: ${status}`);
    }
  }
  out.push([name, pushed ? 'yes' : 'no', fmtMs(ms.on), fmtMs(ms.off), fmtMs(ms.parquet), fmtMs(ms.table),
    x(ms.on / ms.parquet), x(ms.on / ms.table), marks.join(', '), notes.length ? notes.join('; ') : 'same']);
  console.error(`${name}: vtx ${fmtMs(ms.on)}, off ${fmtMs(ms.off)}, parquet ${fmtMs(ms.parquet)}, table ${fmtMs(ms.table)}${notes.length ? ` (${notes.join('; ')})` : ''}`);
}
for (const s of pushdown(true)) await conn.run(s);

const geo = (xs) => Math.exp(xs.reduce((a, v) => a + Math.log(v), 0) / xs.length);
out.push(['**total**', '', fmtMs(totals.on), fmtMs(totals.off), fmtMs(totals.parquet), fmtMs(totals.table),
  x(totals.on / totals.parquet), x(totals.on / totals.table), '', '']);
console.log('\n## Queries (median wall time; vtx÷parquet and vtx÷table > 1: .vtx is slower)\n');
console.log(md(out));
console.log(`
## Summary

| | |
|---|---|
| rows | ${args.rows.toLocaleString()} (generated in ${fmtMs(genMs)}) |
| total (sum of medians) | vtx ${fmtMs(totals.on)}, vtx off ${fmtMs(totals.off)}, Parquet ${fmtMs(totals.parquet)}, table ${fmtMs(totals.table)} |
| Parquet ÷ vtx | total ${x(totals.parquet / totals.on)}, geomean ${x(geo(ratios.parquet))} |
| table ÷ vtx | total ${x(totals.table / totals.on)}, geomean ${x(geo(ratios.table))} |
| off ÷ on | total ${x(totals.off / totals.on)}, geomean ${x(geo(ratios.off))} |
| slower than Parquet | ${slower.parquet.length} of ${QUERIES.length}${slower.parquet.length ? `: ${slower.parquet.join(', ')}` : ''} |
| slower than the table | ${slower.table.length} of ${QUERIES.length}${slower.table.length ? `: ${slower.table.join(', ')}` : ''} |
| wrong answers | ${wrong.length} |
| COPY | ${copyLine.replace(/; $/, '')} |
| size | ${sizeLine.replace(/^sizes: /, '')} |`);
if (wrong.length) {
  console.log(`\n## WRONG ANSWERS (${wrong.length})\n\n${wrong.map((w) => `- ${w}`).join('\n')}`);
  process.exitCode = 1;
} else console.log(`\nEvery answer equals DuckDB's table's, up to tied rows.`);
