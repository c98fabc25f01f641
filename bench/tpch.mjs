#!/usr/bin/env node
// TPC-H (issue 23): the 22 queries over .vtx with pushdown on and off, Parquet and DuckDB tables,
// side by side in one process.
//   node bench/tpch.mjs [--sf=1] [--runs=5] [--queries=1,6,13] [--copy-runs=3]
// The tables come from the shared generator (TPCH_DIR, default ../shared/tpch beside the project
// root; its gen.sh needs DUCKDB_MIRROR or the mirror where it looks by default), written once as
// Parquet into bench/data/tpch-sf<SF>/. They are loaded into DuckDB tables, and from those the
// .vtx and the Parquet files that are queried are written in this run (both by the same DuckDB,
// from the same tables, so sizes and COPY times compare). Each source is a schema of the same
// table names (views over vortex_scan / read_parquet, or the tables), chosen by search_path, so
// the query texts are DuckDB's own, unchanged. Every answer is checked against the DuckDB
// tables' answer, and loosely against the published answers (TPCH_DIR/answers/sf<SF>) if present.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchDir, connect, dataDir, fmtMs, machine, parseArgs } from './common.mjs';
import { answerOf, compare, md, median, runOn, suiteSources, writeTables, x } from './suite.mjs';

const args = parseArgs({ sf: 1, runs: 5, queries: '', copyRuns: 3 });
const root = resolve(benchDir, '..');
const tpchDir = resolve(root, process.env.TPCH_DIR ?? '../shared/tpch');
const sf = String(args.sf); // as gen.sh and the answers' folders spell it: 1, 0.1
const QUERIES = args.queries ? args.queries.split(',').map(Number) : Array.from({ length: 22 }, (_, i) => i + 1);
for (const n of QUERIES) if (!(Number.isInteger(n) && n >= 1 && n <= 22)) throw new Error(`--queries: no TPC-H query ${n}`);
const TABLES = ['lineitem', 'orders', 'customer', 'part', 'partsupp', 'supplier', 'nation', 'region'];
const nn = (n) => String(n).padStart(2, '0');
// DOUBLE cells may differ from the tables' by this much, relatively (summation order).
const TOLERANCE = 1e-12;

const dir = dataDir(`tpch-sf${sf}`);
// gen.sh returns at once when the folder already holds this scale factor; it must run from the
// project root (it takes DuckDB's headers and libduckdb.so from there).
// Its compile takes the headers `npm install` verified into .cache/ for the installed DuckDB.
const duckdbVersion = JSON.parse(readFileSync(join(root, 'node_modules/@duckdb/node-bindings/package.json'), 'utf8')).version.split('-')[0];
const env = { DUCKDB_HEADERS: join(root, '.cache', `duckdb-${duckdbVersion}`, 'src'), ...process.env };
const gen = spawnSync('bash', [join(tpchDir, 'gen.sh'), sf, dir], { cwd: root, stdio: 'inherit', env });
if (gen.status !== 0) throw new Error(`${tpchDir}/gen.sh ${sf} ${dir} failed (status ${gen.status})`);

const { conn } = await connect();
const threads = (await conn.runAndReadAll("SELECT current_setting('threads')")).getRowsJS()[0][0];
console.log(`# TPC-H SF${sf}, ${args.runs} runs (medians after one warm-up round; the four sources interleaved, each round starting with the next); ${threads} DuckDB threads; ${machine()}\n`);

// Load, then write both formats from the tables.
await writeTables(conn, dir, TABLES, Math.max(1, args.copyRuns));

const SOURCES = suiteSources(true);

const out = [['query', 'pushed?', 'vtx', 'vtx pushdown off', 'parquet', 'duckdb table', 'parquet/vtx', 'table/vtx', 'off/on', 'answers vs table', 'vs published']];
const notes = [];
const ratios = { parquet: [], table: [], off: [] };
const totals = { on: 0, off: 0, parquet: 0, table: 0 };
for (const n of QUERIES) {
  const sql = readFileSync(join(tpchDir, 'queries', `q${nn(n)}.sql`), 'utf8');
  // Most TPC-H aggregates sit above joins, where no pushdown applies: pushdown off then runs the
  // same plan and off/on is noise; 'pushed?' says where the plans differ.
  await conn.run("SET search_path = 'vtx'");
  await conn.run('SET vortex_pushdown = true');
  const plan = (await conn.runAndReadAll(`EXPLAIN ${sql}`)).getRowsJS().map((r) => r[1]).join('');
  const pushed = /Pushed (Aggregates|Groups)/.test(plan);
  // The warm-up round's answers are the ones checked.
  const answers = {};
  for (const src of SOURCES) answers[src.key] = answerOf((await runOn(conn, src, sql)).result);
  const times = Object.fromEntries(SOURCES.map((s) => [s.key, []]));
  // Each round starts with the next source: run in a fixed order, .vtx always came right after
  // the tables and pushdown off right after .vtx on the same files, and off/on read 0.94x on
  // queries whose plans are identical (the first source of a round pays for what the previous
  // one evicted: caches, the allocator's pages).
  for (let i = 0; i < args.runs; i++) {
    for (let k = 0; k < SOURCES.length; k++) {
      const src = SOURCES[(i + k) % SOURCES.length];
      times[src.key].push((await runOn(conn, src, sql)).ms);
    }
  }
  const ms = Object.fromEntries(SOURCES.map((s) => [s.key, median(times[s.key])]));
  for (const k of Object.keys(totals)) totals[k] += ms[k];
  ratios.parquet.push(ms.parquet / ms.on);
  ratios.table.push(ms.table / ms.on);
  ratios.off.push(ms.off / ms.on);

  const checks = [];
  for (const src of SOURCES.filter((s) => s.key !== 'table')) {
    const c = compare(answers.table, answers[src.key], TOLERANCE);
    if (c.status !== 'same') {
      checks.push(`${src.key}: ${c.status}`);
      notes.push(`q${nn(n)} ${src.label}: ${c.status}${c.detail ? ` (${c.detail})` : ''}`);
    }
  }
  if (checks.some((c) => c.endsWith('DIFFERS'))) process.exitCode = 1;
  const published = publishedCheck(n, answers.table);
  if (published.startsWith('DIFFERS')) notes.push(`q${nn(n)} duckdb table vs published answer: ${published}`);
  out.push([`q${nn(n)}`, pushed ? 'yes' : 'no', fmtMs(ms.on), fmtMs(ms.off), fmtMs(ms.parquet), fmtMs(ms.table),
    x(ms.parquet / ms.on), x(ms.table / ms.on), x(ms.off / ms.on), checks.length ? checks.join('; ') : 'same', published.split(':')[0]]);
}
const geo = (xs) => Math.exp(xs.reduce((a, v) => a + Math.log(v), 0) / xs.length);
out.push(['**total**', '', fmtMs(totals.on), fmtMs(totals.off), fmtMs(totals.parquet), fmtMs(totals.table),
  x(totals.parquet / totals.on), x(totals.table / totals.on), x(totals.off / totals.on), '', '']);
out.push(['**geomean of ratios**', '', '', '', '', '', x(geo(ratios.parquet)), x(geo(ratios.table)), x(geo(ratios.off)), '', '']);
console.log('\n## Queries (median wall time; ratios > 1: vtx with pushdown is faster)\n');
console.log(md(out));
if (notes.length) console.log(`\n## Answer differences\n\n${notes.map((s) => `- ${s}`).join('\n')}`);
else console.log('\nEvery source gave the DuckDB tables\' answer, value for value.');

/**
 * The published answer, loosely: its strings may be quoted and its decimals spelled with other
 * trailing zeros (TPCH_DIR/README.md), so numbers are compared as numbers (relative 1e-9).
 */
function publishedCheck(n, ref) {
  const file = join(tpchDir, 'answers', `sf${sf}`, `q${nn(n)}.csv`);
  if (!existsSync(file)) return '—';
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length).slice(1); // header names differ (q18)
  if (lines.length !== ref.rows.length) return `DIFFERS: ${ref.rows.length} rows, published ${lines.length}`;
  const unquote = (s) => (/^".*"$/.test(s) ? s.slice(1, -1).replace(/""/g, '"') : s);
  for (let i = 0; i < lines.length; i++) {
    const cells = lines[i].split('|').map(unquote);
    for (let c = 0; c < cells.length; c++) {
      const a = ref.rows[i][c], b = cells[c];
      if (a === b) continue;
      const na = Number(a), nb = Number(b);
      const close = a.trim() !== '' && b.trim() !== '' && Number.isFinite(na) && Number.isFinite(nb) &&
        Math.abs(na - nb) <= 1e-9 * Math.max(Math.abs(na), Math.abs(nb));
      if (!close) return `DIFFERS: row ${i + 1} column ${c + 1}: ${a}, published ${b}`;
    }
  }
  return 'same';
}
