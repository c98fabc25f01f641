import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isPushed, openDb, rows, sqlString, tempDir } from './helpers';

describe('hive partitioning, as for Parquet', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let glob: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    for (const year of [2023, 2024]) {
      for (const region of ['eu', 'us']) {
        const d = `${dir}/year=${year}/region=${region}`;
        mkdirSync(d, { recursive: true });
        await conn.run(`COPY (SELECT i AS x FROM range(${year - 2020}) r(i)) TO ${sqlString(`${d}/data.vtx`)} (FORMAT vortex)`);
      }
    }
    glob = `${dir}/*/*/*.vtx`;
  });

  it('adds typed partition columns by default', async () => {
    const r = await rows(conn, `SELECT region, year, sum(x), count(*) FROM vortex_scan(${sqlString(glob)}) GROUP BY ALL ORDER BY ALL`);
    expect(r).toEqual([
      ['eu', 2023n, 3n, 3n], ['eu', 2024n, 6n, 4n], ['us', 2023n, 3n, 3n], ['us', 2024n, 6n, 4n],
    ]);
    const types = await rows(conn, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM vortex_scan(${sqlString(glob)}))`);
    // Same order as DuckDB gives Parquet: partition keys sorted by name.
    expect(types).toEqual([['x', 'BIGINT'], ['region', 'VARCHAR'], ['year', 'BIGINT']]);
  });

  it('can be switched off, and filters on partitions still hold', async () => {
    const off = await rows(conn, `DESCRIBE SELECT * FROM vortex_scan(${sqlString(glob)}, hive_partitioning := false)`);
    expect(off.map((r) => r[0])).toEqual(['x']);
    expect(await rows(conn, `SELECT count(*) FROM vortex_scan(${sqlString(glob)}) WHERE year = 2024 AND region = 'us'`)).toEqual([[4n]]);
    const withName = await rows(conn, `SELECT DISTINCT regexp_extract(filename, 'region=(\\w+)', 1) = region FROM vortex_scan(${sqlString(glob)}, filename := true)`);
    expect(withName).toEqual([[true]]);
  });

  it('pushes aggregates over file columns, not over partition columns', async () => {
    expect(await isPushed(conn, `SELECT count(*), sum(x) FROM vortex_scan(${sqlString(glob)})`)).toBe(true);
    expect(await rows(conn, `SELECT count(*), sum(x) FROM vortex_scan(${sqlString(glob)})`)).toEqual([[14n, 18n]]);
    expect(await isPushed(conn, `SELECT max(year) FROM vortex_scan(${sqlString(glob)})`)).toBe(false);
    expect(await rows(conn, `SELECT max(year), min(region) FROM vortex_scan(${sqlString(glob)})`)).toEqual([[2024n, 'eu']]);
  });

  it('round-trips COPY ... PARTITION_BY', async () => {
    const out = `${dir}/partitioned`;
    await conn.run(`COPY (SELECT i % 3 AS k, i AS x FROM range(1000) r(i)) TO ${sqlString(out)} (FORMAT vortex, PARTITION_BY (k))`);
    const scan = `vortex_scan(${sqlString(`${out}/*/*.vtx`)})`;
    expect(await rows(conn, `SELECT k, count(*), sum(x) FROM ${scan} GROUP BY k ORDER BY k`))
      .toEqual([[0n, 334n, 166833n], [1n, 333n, 166167n], [2n, 333n, 166500n]]);
  });
});
