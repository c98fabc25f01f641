#!/usr/bin/env node
// TPC-DS: the 99 queries over .vtx (pushdown on; optionally off), Parquet and DuckDB tables, side
// by side in one process, modeled on tpch.mjs.
//   node bench/tpcds.mjs [--sf=1] [--runs=3] [--queries=1,2,3] [--copy-runs=1] [--off]
// The 24 tables come from bench/tpcds/gen.sh (the dsdgen of the dev dependency's DuckDB, compiled from the sources of
// a duckdb/duckdb git mirror: DUCKDB_MIRROR, default ../.mirror/duckdb+duckdb/repo beside the project), written
// once as Parquet into bench/data/tpcds-sf<SF>/. They are loaded into DuckDB tables, and from
// those the .vtx and the Parquet files that are queried are written in this run (both by the same
// DuckDB, from the same tables, so sizes and COPY times compare). Each source is a schema of the
// same table names (views over vortex_scan / read_parquet, or the tables), chosen by search_path,
// so the query texts are DuckDB's own, unchanged: they are read from the mirror at run time
// (extension/tpcds/dsdgen/queries/NN.sql at DUCKDB_REF, default the dev dependency's tag), never copied here.
// Every answer is checked against the DuckDB tables' answer, and loosely against DuckDB's
// published answers (extension/tpcds/dsdgen/answers/sf<SF>/NN.csv in the mirror) if present.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchDir, connect, dataDir, fmtMs, machine, parseArgs, q } from './common.mjs';
import { answerOf, compare, md, median, runOn, suiteSources, writeTables, x } from './suite.mjs';

const args = parseArgs({ sf: 1, runs: 3, queries: '', copyRuns: 1, off: false, short: 60 });
const root = resolve(benchDir, '..');
// where fetching duckdb/duckdb puts its mirror: beside the project's folder, as ../shared/tpch/gen.sh assumes
const mirror = process.env.DUCKDB_MIRROR ?? resolve(root, '..', '.mirror', 'duckdb+duckdb', 'repo');
const ref = process.env.DUCKDB_REF ?? `v${JSON.parse(readFileSync(new URL('../node_modules/@duckdb/node-api/package.json', import.meta.url), 'utf8')).version.split('-')[0]}`;
const sf = String(args.sf); // as gen.sh and the answers' folders spell it: 1, 0.01
const QUERIES = args.queries ? args.queries.split(',').map(Number) : Array.from({ length: 99 }, (_, i) => i + 1);
for (const n of QUERIES) if (!(Number.isInteger(n) && n >= 1 && n <= 99)) throw new Error(`--queries: no TPC-DS query ${n}`);
const TABLES = ['call_center', 'catalog_page', 'catalog_returns', 'catalog_sales', 'customer', 'customer_address',
  'customer_demographics', 'date_dim', 'household_demographics', 'income_band', 'inventory', 'item', 'promotion',
  'reason', 'ship_mode', 'store', 'store_returns', 'store_sales', 'time_dim', 'warehouse', 'web_page',
  'web_returns', 'web_sales', 'web_site'];
const nn = (n) => String(n).padStart(2, '0');
// DOUBLE cells may differ from the tables' by this much, relatively (summation order; TPC-DS divides sums, which widens it).
const TOLERANCE = 1e-9;

/** A file of the mirror's extension/tpcds/dsdgen at `ref`, or null when it is absent. */
function fromMirror(path) {
  const r = spawnSync('git', ['-C', mirror, 'show', `${ref}:extension/tpcds/dsdgen/${path}`], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return r.status === 0 ? r.stdout : null;
}

const dir = dataDir(`tpcds-sf${sf}`);
// gen.sh returns at once when the folder already holds this scale factor; it must run from the
// project root. Its compile takes the headers `npm install` verified into .cache/ for the
// installed DuckDB (the same path tpch.mjs passes).
const duckdbVersion = JSON.parse(readFileSync(join(root, 'node_modules/@duckdb/node-bindings/package.json'), 'utf8')).version.split('-')[0];
const env = { DUCKDB_HEADERS: join(root, '.cache', `duckdb-${duckdbVersion}`, 'src'), DUCKDB_MIRROR: mirror, DUCKDB_REF: ref, ...process.env };
const gen = spawnSync('bash', [join(benchDir, 'tpcds', 'gen.sh'), sf, dir], { cwd: root, stdio: 'inherit', env });
if (gen.status !== 0) throw new Error(`bench/tpcds/gen.sh ${sf} ${dir} failed (status ${gen.status})`);

const queryText = Object.fromEntries(QUERIES.map((n) => {
  const sql = fromMirror(`queries/${nn(n)}.sql`);
  if (sql === null) throw new Error(`no queries/${nn(n)}.sql at ${ref} in ${mirror}`);
  return [n, sql];
}));

const { conn } = await connect();
const threads = (await conn.runAndReadAll("SELECT current_setting('threads')")).getRowsJS()[0][0];
console.log(`# TPC-DS SF${sf}, ${args.runs} runs (medians after one warm-up round; the sources interleaved, each round starting with the next); ${threads} DuckDB threads; ${machine()}\n`);

// Load, then write both formats from the tables.
await writeTables(conn, dir, TABLES, Math.max(1, args.copyRuns));

const SOURCES = suiteSources(args.off);

const header = ['query', 'pushed?', 'vtx', ...(args.off ? ['vtx pushdown off'] : []), 'parquet', 'duckdb table',
  'parquet/vtx', 'table/vtx', ...(args.off ? ['off/on'] : []), 'answers vs table', 'table vs published'];
const out = [header];
const notes = [];
const results = []; // { n, ms: { on, parquet, table, off? } } for queries every source ran
for (const n of QUERIES) {
  const sql = queryText[n];
  let pushed = '?';
  try {
    await conn.run("SET search_path = 'vtx'");
    await conn.run('SET vortex_pushdown = true');
    const plan = (await conn.runAndReadAll(`EXPLAIN ${sql}`)).getRowsJS().map((r) => r[1]).join('');
    pushed = /Pushed (Aggregates|Groups)/.test(plan) ? 'yes' : 'no';
  } catch { /* the warm-up round reports the error */ }
  // The warm-up round's answers are the ones checked; a source that fails is left out of the timing.
  const answers = {}, errors = {};
  for (const src of SOURCES) {
    try {
      answers[src.key] = answerOf((await runOn(conn, src, sql)).result);
    } catch (e) {
      errors[src.key] = String(e.message ?? e).split('\n')[0];
      notes.push(`q${nn(n)} ${src.label}: ERROR ${String(e.message ?? e)}`);
      process.exitCode = 1;
    }
  }
  const live = SOURCES.filter((s) => !(s.key in errors));
  const times = Object.fromEntries(live.map((s) => [s.key, []]));
  // Each round starts with the next source (the first source of a round pays for what the
  // previous one evicted: caches, the allocator's pages).
  for (let i = 0; i < args.runs; i++) {
    for (let k = 0; k < live.length; k++) {
      const src = live[(i + k) % live.length];
      times[src.key].push((await runOn(conn, src, sql)).ms);
    }
  }
  const ms = Object.fromEntries(live.map((s) => [s.key, median(times[s.key])]));
  const allRan = SOURCES.every((s) => s.key in ms);
  if (allRan) results.push({ n, ms });

  const checks = [];
  for (const src of SOURCES.filter((s) => s.key !== 'table')) {
    if (src.key in errors) { checks.push(`${src.key}: ERROR`); continue; }
    if ('table' in errors) continue;
    const c = compare(answers.table, answers[src.key], TOLERANCE);
    if (c.status !== 'same') {
      checks.push(`${src.key}: ${c.status}`);
      notes.push(`q${nn(n)} ${src.label}: ${c.status}${c.detail ? ` (${c.detail})` : ''}`);
      if (c.status === 'DIFFERS') {
        notes.push(`  q${nn(n)} duckdb table answer (${answers.table.rows.length} rows):\n${dump(answers.table)}`);
        notes.push(`  q${nn(n)} ${src.label} answer (${answers[src.key].rows.length} rows):\n${dump(answers[src.key])}`);
      }
    }
  }
  if (checks.some((c) => c.endsWith('DIFFERS'))) process.exitCode = 1;
  const published = 'table' in errors ? '—' : await publishedCheck(n, answers.table);
  if (published.startsWith('DIFFERS')) notes.push(`q${nn(n)} duckdb table vs published answer: ${published}`);
  const cell = (k) => (k in ms ? fmtMs(ms[k]) : 'ERROR');
  const ratio = (a, b) => (a in ms && b in ms ? x(ms[a] / ms[b]) : '—');
  out.push([`q${nn(n)}`, pushed, cell('on'), ...(args.off ? [cell('off')] : []), cell('parquet'), cell('table'),
    ratio('parquet', 'on'), ratio('table', 'on'), ...(args.off ? [ratio('off', 'on')] : []),
    checks.length ? checks.join('; ') : 'same', published.split(':')[0]]);
  if ('table' in errors) out[out.length - 1][out[0].length - 2] = `table: ERROR ${errors.table}`;
}
const geo = (xs) => Math.exp(xs.reduce((a, v) => a + Math.log(v), 0) / xs.length);
const tot = (k, rs = results) => rs.reduce((a, r) => a + r.ms[k], 0);
out.push(['**total**', '', fmtMs(tot('on')), ...(args.off ? [fmtMs(tot('off'))] : []), fmtMs(tot('parquet')), fmtMs(tot('table')),
  x(tot('parquet') / tot('on')), x(tot('table') / tot('on')), ...(args.off ? [x(tot('off') / tot('on'))] : []), '', '']);
out.push(['**geomean of ratios**', '', '', ...(args.off ? [''] : []), '', '',
  x(geo(results.map((r) => r.ms.parquet / r.ms.on))), x(geo(results.map((r) => r.ms.table / r.ms.on))),
  ...(args.off ? [x(geo(results.map((r) => r.ms.off / r.ms.on)))] : []), '', '']);
console.log('\n## Queries (median wall time; ratios > 1: vtx with pushdown is faster)\n');
console.log(md(out));

console.log('\n## Summary\n');
summary('All queries', results);
summary(`Short queries (parquet median under ${args.short} ms)`, results.filter((r) => r.ms.parquet < args.short));

if (notes.length) console.log(`\n## Errors and answer differences\n\n${notes.map((s) => `- ${s}`).join('\n')}`);
else console.log('\nEvery source gave the DuckDB tables\' answer, value for value.');

function summary(title, rs) {
  console.log(`### ${title}: ${rs.length} queries\n`);
  if (!rs.length) return;
  const pr = rs.map((r) => r.ms.parquet / r.ms.on), tr = rs.map((r) => r.ms.table / r.ms.on);
  const slower = rs.filter((r) => r.ms.parquet / r.ms.on < 1);
  const slowerTable = rs.filter((r) => r.ms.table / r.ms.on < 1);
  console.log(md([
    ['measure', 'parquet/vtx', 'table/vtx'],
    ['total time ratio', `${x(tot('parquet', rs) / tot('on', rs))} (${fmtMs(tot('parquet', rs))} / ${fmtMs(tot('on', rs))})`,
      `${x(tot('table', rs) / tot('on', rs))} (${fmtMs(tot('table', rs))} / ${fmtMs(tot('on', rs))})`],
    ['geometric mean of ratios', x(geo(pr)), x(geo(tr))],
    ['median ratio', x(median(pr)), x(median(tr))],
    ['queries where vtx is slower (ratio < 1)', `${slower.length} of ${rs.length}`, `${slowerTable.length} of ${rs.length}`],
    ['… of them by more than 10% (ratio < 0.9)', `${rs.filter((r) => r.ms.parquet / r.ms.on < 0.9).length}`,
      `${rs.filter((r) => r.ms.table / r.ms.on < 0.9).length}`],
  ]));
  const worst = [...rs].sort((a, b) => a.ms.parquet / a.ms.on - b.ms.parquet / b.ms.on).slice(0, 10);
  console.log(`\nWorst ${worst.length} parquet/vtx ratios:\n`);
  console.log(md([['query', 'parquet/vtx', 'vtx', 'parquet', 'duckdb table', 'vtx − parquet'],
    ...worst.map((r) => [`q${nn(r.n)}`, x(r.ms.parquet / r.ms.on), fmtMs(r.ms.on), fmtMs(r.ms.parquet), fmtMs(r.ms.table),
      `${(r.ms.on - r.ms.parquet).toFixed(2)} ms`])]));
  console.log('');
}

function dump(answer, max = 20) {
  const lines = answer.rows.slice(0, max).map((r) => `      ${r.join('|')}`);
  if (answer.rows.length > max) lines.push(`      … ${answer.rows.length - max} more rows`);
  return lines.join('\n');
}

/**
 * The published answer, loosely: its decimals may be spelled with other trailing zeros, so numbers
 * are compared as numbers (relative 1e-9), and its empty strings are spelled '(empty)';
 * 'same (order)' when only the order of rows differs (ties under the ORDER BY).
 */
async function publishedCheck(n, ref) {
  const text = fromMirror(`answers/sf${sf}/${nn(n)}.csv`);
  if (text === null) return '—';
  // Parsed by DuckDB's CSV reader, every cell as text; the header names may differ from ours.
  const file = join(tmpdir(), `tpcds-answer-${process.pid}-${nn(n)}.csv`);
  writeFileSync(file, text);
  let parsed;
  try {
    parsed = await conn.runAndReadAll(`SELECT * FROM read_csv(${q(file)}, delim = '|', header = true, all_varchar = true, nullstr = 'NULL')`);
  } finally {
    rmSync(file, { force: true });
  }
  // NULL as answerOf spells it; DuckDB's answer files spell the empty string '(empty)' (q30's c_login).
  const pub = parsed.getRows().map((r) => r.map((v) => (v === null ? 'NULL' : v === '(empty)' ? '' : String(v))));
  if (pub.length !== ref.rows.length) return `DIFFERS: ${ref.rows.length} rows, published ${pub.length}`;
  const close = (a, b) => {
    if (a === b) return true;
    const na = Number(a), nb = Number(b);
    return a.trim() !== '' && b.trim() !== '' && Number.isFinite(na) && Number.isFinite(nb) &&
      Math.abs(na - nb) <= 1e-9 * Math.max(Math.abs(na), Math.abs(nb));
  };
  let first = null;
  for (let i = 0; i < pub.length && !first; i++) {
    if (pub[i].length !== ref.rows[i].length) { first = `row ${i + 1}: ${pub[i].length} cells, ours ${ref.rows[i].length}`; break; }
    for (let c = 0; c < pub[i].length; c++) {
      if (!close(ref.rows[i][c], pub[i][c])) { first = `row ${i + 1} column ${c + 1}: ${ref.rows[i][c]}, published ${pub[i][c]}`; break; }
    }
  }
  if (!first) return 'same';
  const norm = (rows) => rows.map((r) => r.map((v) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v).toPrecision(9) : v)).join('\u0001')).sort().join('\u0002');
  return norm(ref.rows) === norm(pub) ? 'same (order)' : `DIFFERS: ${first}`;
}
