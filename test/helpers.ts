import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { registerVortex } from '../src/index';

/**
 * Runs the suites under DuckDB's own statement verification (scripts/test-verification.mjs):
 * every query is also run unoptimized, copied, serialized and deserialized, prepared, and the
 * results must agree.
 */
export const VERIFY = process.env.VORTEX_VERIFY === '1';

/** A fresh in-memory database with the extension registered (and, with VERIFY, verification on). */
export async function openDb(): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection }> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await registerVortex(conn);
  if (VERIFY) await conn.run('PRAGMA enable_verification');
  return { instance, conn };
}

/** A temporary directory removed when the test file ends. */
export function tempDir(prefix = 'vtx-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The row of `sql` once `done` holds for it, or its last row after `ms`: buffers this package keeps
 * for the next query are released a second after the last scan or COPY ends (native/format/scratch.cpp),
 * and DuckDB may drop a finished query's scan state some milliseconds after its result arrives.
 */
export async function settledRow(conn: DuckDBConnection, sql: string, done: (row: unknown[]) => boolean, ms = 5000): Promise<unknown[]> {
  const deadline = performance.now() + ms;
  for (;;) {
    const [row] = await rows(conn, sql);
    if (done(row) || performance.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Rows as plain JS values; bigints and special doubles made comparable. */
export async function rows(conn: DuckDBConnection, sql: string): Promise<unknown[][]> {
  const r = await conn.runAndReadAll(sql);
  return r.getRowsJS() as unknown[][];
}

export async function scalar(conn: DuckDBConnection, sql: string): Promise<unknown> {
  return (await rows(conn, sql))[0]?.[0];
}

export async function explain(conn: DuckDBConnection, sql: string): Promise<string> {
  const r = await rows(conn, `EXPLAIN ${sql}`);
  return r.map((row) => String(row[1])).join('\n');
}

/** Whether every aggregate of `sql` is answered by the reader (a SELECT list pushed in part is not). */
export async function isPushed(conn: DuckDBConnection, sql: string): Promise<boolean> {
  const plan = await explain(conn, sql);
  const pushed = plan.includes('Pushed Aggregates');
  // Pushed in part: the reader's one-row scan beside DuckDB's aggregate, joined.
  if (pushed && plan.includes('CROSS_PRODUCT') && plan.includes('UNGROUPED_AGGREGATE')) return false;
  // DuckDB's aggregate operators; the pushed scans are VORTEX_SCAN_AGGREGATE and VORTEX_SCAN_GROUPED.
  if (pushed && /AGGREGATE|GROUP_BY/.test(plan.replace(/Pushed Aggregates|VORTEX_SCAN_(AGGREGATE|GROUPED)/g, ''))) {
    throw new Error(`plan shows both pushed aggregates and an aggregate operator:\n${plan}`);
  }
  return pushed;
}

/** Stable text form of a value for comparisons: distinguishes NaN, ±inf, -0.0, NULL and types. */
export function show(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (Object.is(v, -0)) return '-0';
    return String(v);
  }
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `blob:${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
  return JSON.stringify(v);
}

/** A query's whole answer as text: column types and rows (show()), or its error message. */
export async function answerText(conn: DuckDBConnection, sql: string): Promise<string> {
  try {
    const r = await conn.runAndReadAll(sql);
    return JSON.stringify({ types: r.columnTypes().map(String), rows: r.getRowsJS().map((row) => row.map(show)) });
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

/**
 * answerText for the reference side of a differential test, a query over DuckDB's own tables:
 * under VERIFY with DuckDB's verification off, which there would only check DuckDB against itself
 * (a third of the verified suites' time, each query run five more times). Not where DuckDB's
 * verifier fails DuckDB's own plan over a table, "Unoptimized statement differs" (zone-bounds'
 * `date_trunc('month', d) <= DATE ...`, bucket-keys' raising ends on 1.5): there both sides,
 * verified, give that same error.
 */
export async function referenceText(conn: DuckDBConnection, sql: string): Promise<string> {
  if (!VERIFY) return answerText(conn, sql);
  await conn.run('PRAGMA disable_verification');
  try {
    return await answerText(conn, sql);
  } finally {
    await conn.run('PRAGMA enable_verification');
  }
}

/**
 * One query over read_parquet and over vortex_scan (pushdown on, then off), on files both formats
 * wrote alike under `dir` (`at(format, ext)`: their path, e.g. `${dir}/${format}-t/**\/*.${ext}`).
 * Answers, or an error's first line (its caret line points into paths of different lengths), with
 * the function names, the formats' `${dir}/<format>-` prefixes and the extensions made equal.
 */
export async function parquetAndVortex(conn: DuckDBConnection, dir: string, at: (format: string, ext: string) => string, options: string,
  query: (from: string) => string): Promise<{ parquet: string; on: string; off: string }> {
  const normalize = (s: string) => s.replaceAll('read_parquet', 'SCAN').replaceAll('vortex_scan', 'SCAN')
    .replaceAll(`${dir}/parquet-`, `${dir}/`).replaceAll(`${dir}/vortex-`, `${dir}/`).replaceAll('.parquet', '.EXT').replaceAll('.vtx', '.EXT');
  const text = async (sql: string) => {
    const answer = normalize(await answerText(conn, sql));
    return answer.startsWith('error:') ? answer.split('\n')[0] : answer;
  };
  const parquet = await text(query(`read_parquet(${sqlString(at('parquet', 'parquet'))}${options})`));
  const vortex = query(`vortex_scan(${sqlString(at('vortex', 'vtx'))}${options})`);
  await conn.run('SET vortex_pushdown = true');
  const on = await text(vortex);
  await conn.run('SET vortex_pushdown = false');
  const off = await text(vortex);
  await conn.run('SET vortex_pushdown = true');
  return { parquet, on, off };
}

/**
 * Whether the reader groups by date_trunc keys on this DuckDB. On the first 1.4 releases DuckDB's own statistics
 * through date_trunc are wrong (a NULL input is no NULL to its GROUP BY), so the addon leaves such
 * keys to DuckDB there (native/duckdb/duckdb_compat.hpp GroupsKeyItself). Asked of DuckDB's
 * behaviour, not its version: the two must agree, or the tests that count pushed plans fail.
 */
export async function dateTruncKeysPushed(conn: DuckDBConnection): Promise<boolean> {
  await conn.run("CREATE OR REPLACE TEMP TABLE vtx_date_trunc_probe AS SELECT CASE WHEN i = 1 THEN NULL ELSE TIMESTAMP '2024-01-01' END AS ts FROM range(2) r(i)");
  const r = await conn.runAndReadAll("SELECT count(*) FROM vtx_date_trunc_probe WHERE date_trunc('hour', ts) IS NULL");
  await conn.run('DROP TABLE vtx_date_trunc_probe');
  return r.getRows()[0][0] === 1n;
}

