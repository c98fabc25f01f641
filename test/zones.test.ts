import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { explain, openDb, rows, show, sqlString, tempDir } from './helpers';

describe('projection pushdown and zone skipping', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let vtx: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    // 10 zones of 10,240 rows; x ascending, n NULL in the first half, s sorted strings,
    // d with NaN only in the last zone.
    await conn.run(`CREATE TABLE t AS SELECT i AS x, CASE WHEN i < 51200 THEN NULL ELSE i END AS n,
      lpad((i // 10240)::VARCHAR, 3, '0') || '-' || (i % 100) AS s,
      CASE WHEN i >= 92160 AND i % 2 = 0 THEN 'nan'::DOUBLE ELSE i::DOUBLE END AS d FROM range(102400) r(i)`);
    const file = `${dir}/z.vtx`;
    await conn.run(`COPY (SELECT * FROM t ORDER BY x) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 10240)`);
    vtx = `vortex_scan(${sqlString(file)})`;
  });

  // Zones the scan decodes (aggregates answered from zones are switched off here).
  async function zonesScanned(sql: string): Promise<string> {
    await conn.run('SET vortex_pushdown = false');
    const plan = (await rows(conn, `EXPLAIN ANALYZE ${sql}`)).map((r) => String(r[1])).join('\n');
    await conn.run('SET vortex_pushdown = true');
    const m = /Zones Scanned: (\d+\/\d+)/.exec(plan);
    if (!m) throw new Error(`no zone counter in:\n${plan}`);
    return m[1];
  }

  async function sameAsTable(sql: (from: string) => string) {
    const a = (await rows(conn, sql(vtx))).map((r) => r.map(show).join('|')).sort();
    const b = (await rows(conn, sql('t'))).map((r) => r.map(show).join('|')).sort();
    expect(a).toEqual(b);
  }

  it('reads only the projected columns', async () => {
    const plan = await explain(conn, `SELECT s FROM ${vtx}`);
    expect(plan).toMatch(/Projections: s/);
  });

  it('shows the zone filters in EXPLAIN', async () => {
    const plan = await explain(conn, `SELECT x FROM ${vtx} WHERE x >= 95000`);
    expect(plan).toContain('Filters');
    expect(plan).toContain('x>=95000');
  });

  it('skips zones by min/max', async () => {
    expect(await zonesScanned(`SELECT sum(x) FROM ${vtx} WHERE x >= 95000`)).toBe('1/10');
    expect(await zonesScanned(`SELECT sum(x) FROM ${vtx} WHERE x < 20480`)).toBe('2/10');
    expect(await zonesScanned(`SELECT sum(x) FROM ${vtx} WHERE x = 31234`)).toBe('1/10');
    expect(await zonesScanned(`SELECT count(*) FROM ${vtx} WHERE s = '004-7'`)).toBe('1/10');
    // Beyond the file's max: DuckDB itself prunes the scan from the statistics we report.
    expect(await explain(conn, `SELECT count(*) FROM ${vtx} WHERE x > 1000000`)).toContain('EMPTY_RESULT');
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE x > 1000000`);
    await sameAsTable((f) => `SELECT sum(x), count(*) FROM ${f} WHERE x >= 95000`);
    await sameAsTable((f) => `SELECT x FROM ${f} WHERE x = 31234`);
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE s = '004-7'`);
  });

  it('skips zones by null counts', async () => {
    expect(await zonesScanned(`SELECT count(*) FROM ${vtx} WHERE n IS NULL`)).toBe('5/10');
    expect(await zonesScanned(`SELECT count(*) FROM ${vtx} WHERE n IS NOT NULL`)).toBe('5/10');
    expect(await zonesScanned(`SELECT count(*) FROM ${vtx} WHERE n > 0`)).toBe('5/10');
    await sameAsTable((f) => `SELECT count(*), sum(x) FROM ${f} WHERE n IS NULL`);
  });

  it('never skips a zone whose NaN could match', async () => {
    // NaN is greater than every number in DuckDB: the last zone must be read for d > 1e9.
    expect(await zonesScanned(`SELECT count(*) FROM ${vtx} WHERE d > 1e9`)).toBe('1/10');
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE d > 1e9`);
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE d < 5 OR d = 'nan'::DOUBLE`);
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE d = 'nan'::DOUBLE`);
  });

  it('keeps filters it cannot use, and the answer, intact', async () => {
    expect(await zonesScanned(`SELECT count(*) FROM ${vtx} WHERE x % 7 = 3`)).toBe('10/10');
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE x % 7 = 3 AND x > 50000`);
    await sameAsTable((f) => `SELECT count(*) FROM ${f} WHERE x > 50000 OR s = '001-1'`);
  });

  it('works with prepared statements run many times', async () => {
    const stmt = await conn.prepare(`SELECT count(*) FROM ${vtx} WHERE x >= $1`);
    for (const v of [0, 95000, 99999, 100000]) {
      stmt.bindBigInt(1, BigInt(v));
      const r = await stmt.runAndReadAll();
      expect(r.getRowsJS()[0][0]).toBe(BigInt(Math.max(0, 102400 - v)));
    }
  });
});
