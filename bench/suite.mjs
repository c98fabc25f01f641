// What the standard-suite benches (tpch.mjs, tpcds.mjs) share: writing a suite's tables in both
// formats from DuckDB tables, and comparing answers.
import { DuckDBTypeId } from '@duckdb/node-api';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileSize, fmtBytes, fmtMs, q, table, timeCopies, timeOnce } from './common.mjs';

export function x(r) {
  return `${r.toFixed(2)}x`;
}

export function fmtSize(n) {
  return n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : fmtBytes(n);
}

/** Markdown via common.mjs's padding: the pipes are columns of their own. */
export function md(rows) {
  const withRule = [rows[0], rows[0].map(() => '---'), ...rows.slice(1)];
  return table(withRule.map((r) => ['|', ...r.flatMap((c) => [c, '|'])]));
}

/**
 * Each `dir/<table>.parquet` loaded into `mem.<table>`, then written from that table as
 * `dir/vtx/<table>.vtx` and `dir/parquet/<table>.parquet` (both by the same DuckDB, so sizes and
 * COPY times compare), with views `vtx.<table>` and `parquet.<table>` over them. Prints the COPY
 * times and sizes per table.
 */
export async function writeTables(conn, dir, tables, copyRuns) {
  mkdirSync(join(dir, 'vtx'), { recursive: true });
  mkdirSync(join(dir, 'parquet'), { recursive: true });
  for (const s of ['mem', 'vtx', 'parquet']) await conn.run(`CREATE SCHEMA ${s}`);
  const copies = [['table', 'rows', 'load (parquet → table)', 'COPY vtx', 'COPY parquet', 'vtx size', 'parquet size', 'vtx/parquet size', 'vtx/parquet COPY time']];
  const sum = { load: 0, vtx: 0, parquet: 0, vtxBytes: 0, parquetBytes: 0, rows: 0n };
  for (const t of tables) {
    const vtx = join(dir, 'vtx', `${t}.vtx`), parquet = join(dir, 'parquet', `${t}.parquet`);
    const load = await timeOnce(conn, `CREATE TABLE mem.${t} AS SELECT * FROM read_parquet(${q(join(dir, `${t}.parquet`))})`);
    const rows = (await conn.runAndReadAll(`SELECT count(*) FROM mem.${t}`)).getRowsJS()[0][0];
    const copied = await timeCopies(conn, {
      vortex: [`COPY mem.${t} TO ${q(vtx)} (FORMAT vortex)`, vtx],
      parquet: [`COPY mem.${t} TO ${q(parquet)} (FORMAT parquet)`, parquet],
    }, copyRuns);
    const vtxMs = copied.vortex, parquetMs = copied.parquet;
    await conn.run(`CREATE VIEW vtx.${t} AS SELECT * FROM vortex_scan(${q(vtx)})`);
    await conn.run(`CREATE VIEW parquet.${t} AS SELECT * FROM read_parquet(${q(parquet)})`);
    const vb = fileSize(vtx), pb = fileSize(parquet);
    Object.assign(sum, { load: sum.load + load, vtx: sum.vtx + vtxMs, parquet: sum.parquet + parquetMs,
      vtxBytes: sum.vtxBytes + vb, parquetBytes: sum.parquetBytes + pb, rows: sum.rows + BigInt(rows) });
    copies.push([t, rows.toLocaleString(), fmtMs(load), fmtMs(vtxMs), fmtMs(parquetMs), fmtSize(vb), fmtSize(pb),
      (vb / pb).toFixed(2), (vtxMs / parquetMs).toFixed(2)]);
  }
  copies.push(['**total**', sum.rows.toLocaleString(), fmtMs(sum.load), fmtMs(sum.vtx), fmtMs(sum.parquet), fmtSize(sum.vtxBytes),
    fmtSize(sum.parquetBytes), (sum.vtxBytes / sum.parquetBytes).toFixed(2), (sum.vtx / sum.parquet).toFixed(2)]);
  console.log(`## Writing the tables (COPY: median of ${copyRuns}, each to a new file, the two formats in alternating order)\n`);
  console.log(md(copies));
}

/** Cells as DuckDB's text (exact for DECIMAL, dates, BIGINT), with the columns' types. */
export function answerOf(result) {
  const floats = result.columnTypes().map((t) => t.typeId === DuckDBTypeId.DOUBLE || t.typeId === DuckDBTypeId.FLOAT);
  return { floats, rows: result.getRows().map((r) => r.map((v) => (v === null ? 'NULL' : String(v)))) };
}

function relDiff(a, b) {
  return Math.abs(Number(a) - Number(b)) / Math.max(Math.abs(Number(a)), Math.abs(Number(b)));
}

/**
 * 'same' when every cell's text is equal; 'DOUBLE last digits' when only DOUBLE cells differ and
 * by a relative `tolerance` at most (summation order); 'order' when the same rows (DOUBLE cells to
 * 9 significant digits) come in another order (ties under the ORDER BY); otherwise 'DIFFERS' with
 * the first differing cell.
 */
export function compare(ref, got, tolerance) {
  if (ref.rows.length !== got.rows.length) return { status: 'DIFFERS', detail: `${got.rows.length} rows, expected ${ref.rows.length}` };
  let worst = 0, first = null;
  for (let i = 0; i < ref.rows.length && !first; i++) {
    for (let c = 0; c < ref.rows[i].length; c++) {
      const a = ref.rows[i][c], b = got.rows[i][c];
      if (a === b) continue;
      const rel = relDiff(a, b);
      if (ref.floats[c] && rel <= tolerance) worst = Math.max(worst, rel);
      else { first = `row ${i + 1} column ${c + 1}: ${b}, expected ${a}`; break; }
    }
  }
  if (first) {
    const norm = (ans) => ans.rows.map((r) => r.map((v, c) => (ans.floats[c] && v !== 'NULL' ? Number(v).toPrecision(9) : v)).join('\u0001')).sort().join('\u0002');
    return norm(ref) === norm(got) ? { status: 'order', detail: first } : { status: 'DIFFERS', detail: first };
  }
  return worst ? { status: 'DOUBLE last digits', detail: `relative difference up to ${worst.toExponential(1)}` } : { status: 'same' };
}

/**
 * The sources a suite runs on, as schemas of the same table names chosen by search_path (with
 * pushdown on and, with `withOff`, off for .vtx). The pushdown setting changes between runs of the
 * same text and the search_path between sources: both are set outside the timed statement
 * (runOn), hence no use of common.mjs's timeInterleaved (which times SQL texts only).
 */
export function suiteSources(withOff) {
  return [
    { key: 'on', label: 'vtx', setup: ["SET search_path = 'vtx'", 'SET vortex_pushdown = true'] },
    ...(withOff ? [{ key: 'off', label: 'vtx pushdown off', setup: ["SET search_path = 'vtx'", 'SET vortex_pushdown = false'] }] : []),
    { key: 'parquet', label: 'parquet', setup: ["SET search_path = 'parquet'", 'SET vortex_pushdown = true'] },
    { key: 'table', label: 'duckdb table', setup: ["SET search_path = 'mem'", 'SET vortex_pushdown = true'] },
  ];
}

/** One run of `sql` on source `src`: its wall time and result. */
export async function runOn(conn, src, sql) {
  for (const s of src.setup) await conn.run(s);
  const start = process.hrtime.bigint();
  const result = await conn.runAndReadAll(sql);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
