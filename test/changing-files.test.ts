import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, isPushed, openDb, show, sqlString, tempDir } from './helpers';

// A statement prepared once and run while the files under it are rewritten, added or removed
// must answer over the files as they are when it runs: exactly what a fresh statement returns,
// as read_parquet does. Each scenario runs over .vtx and, as the reference, over Parquet;
// pushed and not pushed; prepared and unprepared.

type Format = 'vtx' | 'parquet';
const scanOf = (format: Format, path: string) =>
  format === 'vtx' ? `vortex_scan(${sqlString(path)})` : `read_parquet(${sqlString(path)})`;
const copyTo = (format: Format, path: string) =>
  `TO ${sqlString(path)} (FORMAT ${format === 'vtx' ? 'vortex' : 'parquet'})`;

const FIRST = `SELECT i::BIGINT AS id, i::BIGINT AS x FROM range(5000) t(i)`;
// 9,000 rows, half NULL, values near 2^62: sums pass int64 and count(x) differs from count(*).
const SECOND = `SELECT i::BIGINT AS id, CASE WHEN i % 2 = 0 THEN NULL ELSE (4611686018427387904 + i * 1000003)::BIGINT END AS x
                FROM range(9000) t(i)`;

let conn: DuckDBConnection;
const dir = tempDir('vtx-changing-');

beforeAll(async () => {
  ({ conn } = await openDb());
});

async function answer(sql: string, prepared?: { run(): Promise<string> }): Promise<string> {
  return prepared ? prepared.run() : answerText(conn, sql);
}

async function prepare(sql: string): Promise<{ run(): Promise<string> }> {
  const stmt = await conn.prepare(sql);
  return {
    async run() {
      const r = await stmt.runAndReadAll();
      return JSON.stringify({ types: r.columnTypes().map(String), rows: r.getRowsJS().map((row) => row.map(show)) });
    },
  };
}

/** Runs `query` (prepared or not), changes the files, runs it again; returns both answers and a fresh one. */
async function scenario(
  query: string,
  change: () => Promise<void>,
  opts: { prepared: boolean; pushdown: boolean },
): Promise<{ before: string; after: string; fresh: string }> {
  await conn.run(`SET vortex_pushdown = ${opts.pushdown}`);
  const stmt = opts.prepared ? await prepare(query) : undefined;
  const before = await answer(query, stmt);
  await change();
  const after = await answer(query, stmt);
  const fresh = await answer(query);
  return { before, after, fresh };
}

const MODES = [
  { prepared: true, pushdown: true },
  { prepared: true, pushdown: false },
  { prepared: false, pushdown: true },
  { prepared: false, pushdown: false },
];

describe.each(MODES)('a rewritten file (prepared $prepared, pushdown $pushdown)', (mode) => {
  const single: Array<[string, (scan: string) => string]> = [
    ['count(x), sum(x)', (scan) => `SELECT count(x), sum(x) FROM ${scan}`],
    ['count(*), sum(x), max(x) WHERE id > 100', (scan) => `SELECT count(*), sum(x), max(x) FROM ${scan} WHERE id > 100`],
    ['sum(x)', (scan) => `SELECT sum(x) FROM ${scan}`],
    ['avg(x), min(x), count(x) WHERE x IS NOT NULL', (scan) => `SELECT avg(x), min(x), count(x) FROM ${scan} WHERE x IS NOT NULL`],
    ['rows with id < 3', (scan) => `SELECT id, x FROM ${scan} WHERE id < 3 ORDER BY id`],
  ];
  it.each(single)('%s', async (_name, query) => {
    const results: Record<Format, { before: string; after: string; fresh: string }> = {} as never;
    for (const format of ['vtx', 'parquet'] as const) {
      const path = join(dir, `p-${mode.prepared}-${mode.pushdown}-${_name.length}.${format}`);
      await conn.run(`COPY (${FIRST}) ${copyTo(format, path)}`);
      results[format] = await scenario(query(scanOf(format, path)), async () => void (await conn.run(`COPY (${SECOND}) ${copyTo(format, path)}`)), mode);
    }
    expect(results.vtx.after).toBe(results.vtx.fresh);
    expect(results.parquet.after).toBe(results.parquet.fresh);
    expect(results.vtx.before).toBe(results.parquet.before);
    expect(results.vtx.after).toBe(results.parquet.after);
    expect(results.vtx.after).not.toBe(results.vtx.before);
  });

  it.each(['added', 'removed'] as const)('a glob with a file %s', async (what) => {
    const results: Record<Format, { before: string; after: string; fresh: string }> = {} as never;
    for (const format of ['vtx', 'parquet'] as const) {
      const sub = join(dir, `glob-${what}-${mode.prepared}-${mode.pushdown}-${format}`);
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 3; f++) {
        await conn.run(`COPY (SELECT (i + ${f * 1000})::BIGINT AS id, (i * ${f + 1})::BIGINT AS x FROM range(1000) t(i)) ${copyTo(format, join(sub, `f${f}.${format}`))}`);
      }
      const query = `SELECT count(*), sum(x), min(x), max(x) FROM ${scanOf(format, join(sub, `*.${format}`))}`;
      results[format] = await scenario(
        query,
        async () => {
          if (what === 'added') await conn.run(`COPY (${SECOND}) ${copyTo(format, join(sub, `f9.${format}`))}`);
          else rmSync(join(sub, `f1.${format}`));
        },
        mode,
      );
    }
    expect(results.vtx.after).toBe(results.vtx.fresh);
    expect(results.parquet.after).toBe(results.parquet.fresh);
    expect(results.vtx.after).toBe(results.parquet.after);
    expect(results.vtx.after).not.toBe(results.vtx.before);
  });
});

describe('prepared statements against random rewrites', () => {
  // Types are kept across rewrites; values, NULLs and row counts are random, some sums past int64.
  const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261130);
  const RUNS = Number(process.env.VORTEX_FC_RUNS ?? 25);
  const STATEMENTS = [
    'SELECT count(*), count(x), sum(x), avg(x), min(x), max(x) FROM SCAN',
    'SELECT count(x), sum(x) FROM SCAN',
    'SELECT count(*), sum(x), max(x) FROM SCAN WHERE id > 100',
    'SELECT sum(d), avg(d), min(d), max(d), count(d) FROM SCAN',
    'SELECT min(s), max(s), count(s) FROM SCAN',
    'SELECT count(*) FROM SCAN WHERE x > 0',
    'SELECT sum(i), min(i), max(i) FROM SCAN WHERE i IS NOT NULL',
  ];
  const version = fc.record({
    rows: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 100, max: 6000 })),
    nullEvery: fc.constantFrom(0, 1, 2, 7),
    base: fc.constantFrom(0n, -1000n, 2n ** 62n, -(2n ** 62n), 9223372036854775000n),
    step: fc.constantFrom(1n, 3n, 1000003n, -7n),
    zone: fc.constantFrom(0, 512, 4096),
  });
  const vtxPath = join(dir, 'rewritten.vtx');

  interface Version { rows: number; nullEvery: number; base: bigint; step: bigint; zone: number }
  function select(v: Version): string {
    const nul = (expr: string) => (v.nullEvery === 0 ? expr : `CASE WHEN i % ${v.nullEvery} = 0 THEN NULL ELSE ${expr} END`);
    // Values stay inside BIGINT: clamp the arithmetic in HUGEINT, then cast.
    const x = `greatest(least(${v.base}::HUGEINT + i::HUGEINT * ${v.step}, 9223372036854775807), -9223372036854775808)::BIGINT`;
    return `SELECT i::BIGINT AS id, ${nul(x)} AS x, ${nul(`((i * ${v.step}) % 100000)::DECIMAL(12,2) / 7`)}::DECIMAL(12,2) AS d,
              ${nul(`'k' || (i % 13)`)} AS s, ${nul(`(i % 1000)::INTEGER`)} AS i
            FROM range(${v.rows}) t(i)`;
  }

  it('every execution equals a fresh statement, pushed and not', async () => {
    await conn.run(`COPY (${select({ rows: 10, nullEvery: 0, base: 0n, step: 1n, zone: 0 })}) TO ${sqlString(vtxPath)} (FORMAT vortex)`);
    const prepared: Array<{ sql: string; stmt: { run(): Promise<string> } }> = [];
    for (const sql of STATEMENTS) prepared.push({ sql: sql.replace('SCAN', `vortex_scan(${sqlString(vtxPath)})`), stmt: await prepare(sql.replace('SCAN', `vortex_scan(${sqlString(vtxPath)})`)) });
    await fc.assert(
      fc.asyncProperty(version, fc.boolean(), async (v, pushdown) => {
        const sizing = v.zone ? `, ROW_GROUP_SIZE ${v.zone}` : '';
        await conn.run(`COPY (${select(v)}) TO ${sqlString(vtxPath)} (FORMAT vortex${sizing})`);
        await conn.run(`SET vortex_pushdown = ${pushdown}`);
        for (const p of prepared) {
          let got: string;
          try {
            got = await p.stmt.run();
          } catch (e) {
            got = `error: ${(e as Error).message}`;
          }
          expect(got, p.sql).toBe(await answer(p.sql));
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    await conn.run('SET vortex_pushdown = true');
  });
});

describe('COPY with no FORMAT', () => {
  it('writes .vtx for a .vtx target and round-trips', async () => {
    const path = join(dir, 'noformat.vtx');
    await conn.run(`COPY (SELECT i AS a, 'v' || i AS b FROM range(3000) t(i)) TO ${sqlString(path)}`);
    expect(readFileSync(path).subarray(0, 4).toString('latin1')).toBe('VTX1');
    const r = await conn.runAndReadAll(`SELECT count(*), sum(a), max(b) FROM vortex_scan(${sqlString(path)})`);
    expect(r.getRowsJS()).toEqual([[3000n, 4498500n, 'v999']]);
    const upper = join(dir, 'UPPER.VTX');
    await conn.run(`COPY (SELECT 1 AS a) TO ${sqlString(upper)}`);
    expect(readFileSync(upper).subarray(0, 4).toString('latin1')).toBe('VTX1');
  });
});

describe('EXPLAIN names the aggregate the user wrote', () => {
  it('shows sum(x), not the sum_no_overflow DuckDB bound it to', async () => {
    const path = join(dir, 'small.vtx');
    await conn.run(`COPY (SELECT i::INTEGER AS x FROM range(100) t(i)) TO ${sqlString(path)} (FORMAT vortex)`);
    const query = `SELECT sum(x) FROM vortex_scan(${sqlString(path)})`;
    await conn.run('SET vortex_pushdown = false');
    // The premise: DuckDB's statistics pass did bind sum_no_overflow here.
    expect(await explain(conn, query)).toContain('sum_no_overflow');
    await conn.run('SET vortex_pushdown = true');
    expect(await isPushed(conn, query)).toBe(true);
    const plan = await explain(conn, query);
    expect(plan).toContain('sum(x)');
    expect(plan).not.toContain('sum_no_overflow');
  });
});
