/**
 * Measures every case live: DuckDB on a native table, the Vortex kernels with Vortex's own
 * semantics (vortex_kernel), Vortex + DuckDB with pushdown on and off, whether EXPLAIN shows the
 * aggregate pushed, and what rules.ts decides. Nothing here is transcribed from the seed.
 */
import { DuckDBConnection, DuckDBInstance, version as duckdbVersion, type DuckDBValue } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPushed } from '../explain';
import { registerVortex } from '../register';
import { decideGroupedPushdown, decidePushdown, sumBoundHolds } from '../rules';
import { sqlString } from '../sql';
import type { CoherenceCase } from './cases';
import { exactFloatAggregates } from './exact-float';
import type { SeedValue } from './seed';

/** One measured answer: a value with its DuckDB type, an error, or (Vortex kernels) no such kernel for the type. */
export type Outcome =
  | { kind: 'value'; text: string; type: string }
  | { kind: 'error'; errorType: string; message: string }
  | { kind: 'unsupported'; message: string };

export interface CaseResult {
  case: CoherenceCase;
  /** Zones in the case's .vtx file (vortex_metadata). */
  zones: number;
  duckdb: Outcome;
  vortex: Outcome;
  pushed: Outcome;
  notPushed: Outcome;
  /** EXPLAIN with pushdown on shows the aggregate answered by the reader. */
  wasPushed: boolean;
  /** EXPLAIN with vortex_pushdown = false still shows pushed aggregates (must never happen). */
  pushedWhileOff: boolean;
  /** What rules.ts decides for (fn, type). */
  rules: { push: boolean; reason: string };
  /** The rules' decision, and a plain column as the argument. */
  expectPushed: boolean;
  match: boolean;
  problems: string[];
  /** Seed cases: the measured Vortex column equals the seed's Vortex column. */
  vortexMatchesSeed?: boolean;
  /** Cases with `exactFloat`: the exact sum (or mean) of the values, rounded once. */
  exact?: Outcome;
}

export interface Measurement {
  duckdbVersion: string;
  results: CaseResult[];
}

/** The report's text of a value: SQL NULL, NaN, inf, -inf and -0 spelled as the seed spells them. */
export function valueText(v: DuckDBValue): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'inf';
    if (v === -Infinity) return '-inf';
    if (Object.is(v, -0)) return '-0';
    return String(v);
  }
  return String(v);
}

/** A documented seed value in the same spelling as measured ones. */
export function seedText(v: SeedValue): string {
  return typeof v === 'number' ? valueText(v) : v === null ? 'NULL' : v;
}

/** The first line of DuckDB's message and its kind (`Binder Error`), without the query excerpt. */
function errorOutcome(e: unknown): Outcome {
  const message = (e instanceof Error ? e.message : String(e)).replace(/\n\s*LINE \d+:[\s\S]*$/, '').trimEnd();
  const m = /^([A-Z][A-Za-z ]*Error):/.exec(message);
  return { kind: 'error', errorType: m ? m[1] : 'Error', message };
}

async function run(conn: DuckDBConnection, sql: string): Promise<Outcome> {
  try {
    const r = await conn.runAndReadAll(sql);
    const rows = r.getRows();
    const text = rows.length ? rows.map((row) => valueText(row[0] ?? null)).join(' | ') : 'NULL';
    return { kind: 'value', text, type: String(r.columnTypes()[0]) };
  } catch (e) {
    return errorOutcome(e);
  }
}

/** `12345` with scale 2 → `123.45`. */
function scaled(unscaled: string, scale: number): string {
  if (scale === 0) return unscaled;
  const neg = unscaled.startsWith('-');
  const digits = (neg ? unscaled.slice(1) : unscaled).padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/**
 * The Vortex column. The kernels sum and average DECIMALs as their unscaled integers (the scale
 * belongs to the type); the report shows them scaled, as a Vortex decimal would print.
 */
async function runKernel(conn: DuckDBConnection, file: string, c: CoherenceCase): Promise<Outcome> {
  if (c.groupBy) return { kind: 'unsupported', message: 'Vortex kernels do not group' };
  if (c.kernel === 'none') return { kind: 'unsupported', message: `no Vortex kernel computes ${c.fn}` };
  const sql = `SELECT result FROM vortex_kernel(${sqlString(file)}, 'x', '${c.kernel}', skip_nans := true)`;
  const out = await run(conn, sql);
  if (out.kind === 'error' && /not supported/.test(out.message)) return { kind: 'unsupported', message: out.message };
  const dec = /^DECIMAL\(\s*\d+\s*,\s*(\d+)\s*\)$/i.exec(c.type);
  if (out.kind !== 'value' || !dec || (c.kernel !== 'sum' && c.kernel !== 'mean') || out.text === 'NULL') return out;
  const scale = Number(dec[1]);
  if (c.kernel === 'sum') return { ...out, text: scaled(out.text, scale), type: `DECIMAL(38,${scale})` };
  const mean = Number(out.text) / 10 ** scale;
  return { ...out, text: valueText(mean) };
}

export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (a.kind === 'value' && b.kind === 'value') return a.text === b.text && a.type === b.type;
  if (a.kind === 'error' && b.kind === 'error') return a.message === b.message;
  return false;
}

/** Short text of an outcome for problems and the rendered tables. */
export function outcomeText(o: Outcome): string {
  if (o.kind === 'value') return o.text;
  if (o.kind === 'unsupported') return 'unsupported';
  return `error (${o.errorType})`;
}

function describe(o: Outcome): string {
  return o.kind === 'value' ? `${o.text} (${o.type})` : outcomeText(o);
}

/** The rules' no-overflow proof, evaluated on the case's values (unscaled, exact). */
async function sumBound(conn: DuckDBConnection, c: CoherenceCase): Promise<boolean> {
  const r = await conn.runAndReadAll(`SELECT min(x)::VARCHAR, max(x)::VARCHAR, count(x) FROM t`);
  const [lo, hi, n] = r.getRowsJS()[0] as [string | null, string | null, bigint];
  const unscaled = (v: string | null) => BigInt((v ?? '0').replace('.', ''));
  return sumBoundHolds(c.type, unscaled(lo), unscaled(hi), BigInt(n));
}

/** The exact float sum or mean of the case's values, rounded once (a DOUBLE). */
async function exactOutcome(conn: DuckDBConnection, c: CoherenceCase): Promise<Outcome> {
  const values = (await conn.runAndReadAll('SELECT x::DOUBLE FROM t')).getRowsJS().map((r) => r[0] as number | null);
  const exact = exactFloatAggregates(values);
  return { kind: 'value', text: valueText(c.fn === 'avg' ? exact.avg : exact.sum), type: 'DOUBLE' };
}

async function measureCase(conn: DuckDBConnection, dir: string, c: CoherenceCase): Promise<CaseResult> {
  const file = join(dir, `${c.id}.vtx`);
  const from = `vortex_scan(${sqlString(file)})`;
  const query = (source: string) => `SELECT ${c.expr} FROM ${source}${c.groupBy ? ' GROUP BY k ORDER BY k' : ''}`;

  await conn.run(`CREATE OR REPLACE TABLE t AS ${c.table}`);
  const options = ['FORMAT vortex', ...(c.rowGroupSize ? [`ROW_GROUP_SIZE ${c.rowGroupSize}`] : [])];
  await conn.run(`COPY t TO ${sqlString(file)} (${options.join(', ')})`);
  const zones = Number((await conn.runAndReadAll(`SELECT count(DISTINCT zone) FROM vortex_metadata(${sqlString(file)}, verify := false)`)).getRows()[0][0]);

  const settings = Object.entries(c.settings ?? {});
  for (const [k, v] of settings) await conn.run(`SET ${k} = ${v}`);
  try {
    const duckdb = await run(conn, query('t'));
    await conn.run('SET vortex_pushdown = true');
    const pushed = await run(conn, query(from));
    const wasPushed = await isPushed(conn, query(from)).catch(() => false);
    await conn.run('SET vortex_pushdown = false');
    const notPushed = await run(conn, query(from));
    const pushedWhileOff = await isPushed(conn, query(from)).catch(() => false);
    await conn.run('SET vortex_pushdown = true');
    const vortex = await runKernel(conn, file, c);

    const decision = c.groupBy ? decideGroupedPushdown(c.fn, c.type) : decidePushdown(c.fn, c.type);
    const expectPushed = decision.push && c.plainArgument && (decision.rule?.requires !== 'sum-bound' || (await sumBound(conn, c)));
    const problems: string[] = [];
    const exact = c.exactFloat ? await exactOutcome(conn, c) : undefined;
    if (exact) {
      if (!sameOutcome(pushed, exact)) problems.push(`pushed gives ${describe(pushed)}, the exact sum rounded once ${describe(exact)}`);
    } else if (!sameOutcome(pushed, duckdb)) {
      problems.push(`pushed gives ${describe(pushed)}, DuckDB ${describe(duckdb)}`);
    }
    // With pushdown off DuckDB's aggregate runs, and over .vtx it sums floats exactly too
    // (vortex_exact_float_sums): the same answer as pushed, in every plan.
    if (!sameOutcome(notPushed, exact ?? duckdb)) {
      problems.push(`pushdown off gives ${describe(notPushed)}, ${exact ? 'the exact sum rounded once' : 'DuckDB'} ${describe(exact ?? duckdb)}`);
    }
    if (wasPushed !== expectPushed) {
      problems.push(`EXPLAIN shows ${wasPushed ? 'pushed' : 'not pushed'}, rules.ts says ${expectPushed ? 'push' : 'do not push'}`);
    }
    if (pushedWhileOff) problems.push('EXPLAIN shows pushed aggregates with vortex_pushdown = false');
    return {
      case: c, zones, duckdb, vortex, pushed, notPushed, wasPushed, pushedWhileOff,
      rules: { push: decision.push, reason: decision.reason }, expectPushed, match: problems.length === 0, problems,
      ...(c.documented ? { vortexMatchesSeed: outcomeText(vortex) === seedText(c.documented.vortex) } : {}),
      ...(exact ? { exact } : {}),
    };
  } finally {
    for (const [k] of settings) await conn.run(`RESET ${k}`);
  }
}

/** Runs every case in a fresh in-memory database; the .vtx files live in a temporary directory removed afterwards. */
export async function measure(cases: readonly CoherenceCase[]): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'vtx-coherence-'));
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await instance.connect();
  try {
    await registerVortex(conn);
    const results: CaseResult[] = [];
    for (const c of cases) results.push(await measureCase(conn, dir, c));
    return { duckdbVersion: duckdbVersion(), results };
  } finally {
    conn.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}
