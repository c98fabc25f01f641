// Shared by the benchmarks: a registered connection, timing, data generation, printing.
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerVortex } from '../dist/index.js';

export const benchDir = dirname(fileURLToPath(import.meta.url));

export function parseArgs(defaults) {
  const out = { ...defaults };
  for (const arg of process.argv.slice(2)) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg}`);
    const key = m[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(key in defaults)) throw new Error(`unknown option --${m[1]} (known: ${Object.keys(defaults).join(', ')})`);
    const v = m[2] ?? 'true';
    out[key] = typeof defaults[key] === 'number' ? Number(v.replace(/_/g, '')) : typeof defaults[key] === 'boolean' ? v !== 'false' : v;
  }
  return out;
}

export async function connect(dbFile = ':memory:') {
  const instance = await DuckDBInstance.create(dbFile);
  const conn = await instance.connect();
  await registerVortex(conn);
  return { instance, conn };
}

export function dataDir(name) {
  const dir = join(benchDir, 'data', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export const q = (s) => `'${s.replace(/'/g, "''")}'`;

/** Median wall time in ms of `runs` executions after `warmup` ones. */
export async function time(conn, sql, { runs = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) await conn.runAndReadAll(sql);
  const t = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    result = await conn.runAndReadAll(sql);
    t.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  t.sort((a, b) => a - b);
  return { ms: t[Math.floor(t.length / 2)], rows: result.getRowsJS() };
}

/**
 * Medians of several queries timed in alternation (one run of each per round), so that a
 * change in the machine's state during the measurement reaches all of them alike: for ratios
 * between fast queries (a pushed query against SELECT 1).
 */
export async function timeInterleaved(conn, sqls, { runs = 31, warmup = 3 } = {}) {
  for (const sql of sqls) for (let i = 0; i < warmup; i++) await conn.runAndReadAll(sql);
  const t = sqls.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < sqls.length; k++) {
      const start = process.hrtime.bigint();
      await conn.runAndReadAll(sqls[k]);
      t[k].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return t.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}

export async function timeOnce(conn, sql) {
  const start = process.hrtime.bigint();
  await conn.run(sql);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * COPY's time per format, the median of `runs`: every COPY writes a new file (its target removed
 * first), the formats taking turns at going first. The first COPY after a load finds less of the
 * memory it needs already mapped, whichever format it writes, and overwriting a file frees the
 * old one's pages at a different moment for an atomic writer (.vtx: rename) than for one that
 * truncates (Parquet). `copies` maps a format to [sql, target path].
 */
export async function timeCopies(conn, copies, runs) {
  const formats = Object.keys(copies);
  const times = Object.fromEntries(formats.map((f) => [f, []]));
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < formats.length; k++) {
      const f = formats[(k + r) % formats.length];
      const [sql, target] = copies[f];
      rmSync(target, { force: true });
      times[f].push(await timeOnce(conn, sql));
    }
  }
  return Object.fromEntries(formats.map((f) => [f, [...times[f]].sort((a, b) => a - b)[(runs - 1) >> 1]]));
}

export function fileSize(path) {
  return statSync(path).size;
}

export function fmtMs(ms) {
  return ms < 1 ? `${ms.toFixed(3)} ms` : ms < 100 ? `${ms.toFixed(2)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function fmtBytes(n) {
  return n > 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;
}

export function machine() {
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

export function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => String(v).padEnd(widths[c])).join('  ')).join('\n');
}

/** The benchmark data set: integers with runs and small ranges, doubles, low- and high-cardinality strings, timestamps. */
export function dataSql(rows) {
  return `SELECT i AS id,
    ((i // 1000) % 100)::INTEGER AS run_int,
    (hash(i) % 1000)::INTEGER AS small_int,
    (hash(i * 7) % 100000000)::DOUBLE / 1000 AS amount,
    ['alpha', 'beta', 'gamma', 'delta', 'epsilon'][1 + (hash(i * 3) % 5)::INTEGER] AS category,
    md5(i::VARCHAR) AS token,
    TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND AS ts
  FROM range(${rows}) r(i)`;
}
