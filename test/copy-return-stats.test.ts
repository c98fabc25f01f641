// COPY ... (FORMAT vortex, RETURN_STATS): per file written, what DuckDB's Parquet writer reports,
// checked against the files themselves and DuckDB's own aggregates of the rows written.
import { statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDb, rows, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-return-stats-');
let conn: DuckDBConnection;

type Stats = Record<string, Record<string, string>>;
function columnStats(cell: unknown): Stats {
  const out: Stats = {};
  for (const entry of cell as { key: string; value: { key: string; value: string }[] }[]) {
    out[entry.key] = Object.fromEntries(entry.value.map((kv) => [kv.key, String(kv.value)]));
  }
  return out;
}

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run(`CREATE TABLE t AS SELECT i, i % 3 AS p, CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || i END AS s,
      CASE WHEN i = 5 THEN 'NaN'::DOUBLE WHEN i = 6 THEN NULL ELSE i / 2 - 100 END AS d, DATE '2024-01-01' + i::INTEGER AS dt,
      CASE WHEN i > 10 THEN NULL ELSE -i END::SMALLINT AS few, NULL::INTEGER AS none, {'a': i} AS st, repeat('x', 300) || i AS long,
      CASE WHEN i % 7 = 0 THEN NULL ELSE {'x': CASE WHEN i % 5 = 0 THEN NULL ELSE i * 2 END, 'y': {'z': 'z' || (i % 13)}} END AS ns,
      CASE WHEN i % 11 = 0 THEN NULL WHEN i % 11 = 1 THEN [] ELSE [i, NULL, -i] END AS li,
      MAP {'k' || (i % 3): i / 4} AS mp
    FROM range(5000) r(i)`);
});

describe('COPY ... RETURN_STATS', () => {
  it('reports rows, sizes and per-column statistics as the Parquet writer does', async () => {
    const path = `${dir}/t.vtx`;
    const [[file, count, size, footer, stats]] = await rows(conn, `COPY t TO ${sqlString(path)} (FORMAT vortex, ROW_GROUP_SIZE 1000, RETURN_STATS)`);
    expect(file).toBe(path);
    expect(count).toBe(5000n);
    expect(size).toBe(BigInt(statSync(path).size));
    expect(Number(footer)).toBeGreaterThan(0);
    expect(Number(footer)).toBeLessThan(statSync(path).size);
    const s = columnStats(stats);
    // Nested columns by leaf, named as Parquet names its leaf columns.
    expect(Object.keys(s).sort()).toEqual(['"d"', '"dt"', '"few"', '"i"', '"li"."element"', '"long"', '"mp"."key"', '"mp"."value"', '"none"',
      '"ns"."x"', '"ns"."y"."z"', '"p"', '"s"', '"st"."a"']);
    // Exact values from DuckDB over the same rows; floats' min/max leave NaN out, as Parquet's do.
    for (const column of ['i', 'p', 's', 'd', 'dt', 'few']) {
      const notNan = column === 'd' ? 'NOT isnan(d)' : 'true';
      const [[min, max]] = await rows(conn, `SELECT min(${column})::VARCHAR, max(${column})::VARCHAR FROM t WHERE ${notNan}`);
      const [[nulls]] = await rows(conn, `SELECT count(*) - count(${column}) FROM t`);
      expect(s[`"${column}"`], column).toMatchObject({ min, max, null_count: String(nulls) });
    }
    expect(s['"d"'].has_nan).toBe('true');
    expect(s['"s"'].num_values).toBe('5000');
    expect(s['"i"'].has_nan).toBeUndefined();
    // No bounds where none is exact (strings past the zones' prefix length) or no value exists.
    expect(s['"long"'].min).toBeUndefined();
    expect(s['"none"']).toMatchObject({ null_count: '5000' });
    expect(s['"none"'].min).toBeUndefined();
    // The columns' stored bytes add up to the file less its header, footer and trailer.
    const stored = Object.values(s).reduce((n, c) => n + Number(c.column_size_bytes), 0);
    expect(stored).toBeLessThan(statSync(path).size);
    expect(stored).toBeGreaterThan(statSync(path).size / 2);
    // And the same figures as Parquet where both formats keep them.
    const [[, pcount, , , pstats]] = await rows(conn, `COPY t TO ${sqlString(`${dir}/t.parquet`)} (FORMAT parquet, RETURN_STATS)`);
    expect(pcount).toBe(count);
    const p = columnStats(pstats);
    expect(Object.keys(p).sort()).toEqual(Object.keys(s).sort());
    for (const column of Object.keys(p)) {
      // Every figure Parquet gives (num_values from DuckDB 1.5 on), but the bytes, is the same.
      // Under a list or map DuckDB 1.5's Parquet counts a NULL value for every empty or NULL list
      // too, which zone statistics cannot tell: no counts are given there (none by 1.4's Parquet).
      const { column_size_bytes: _, ...theirs } = p[column];
      if (column.startsWith('"li"') || column.startsWith('"mp"')) {
        delete theirs.num_values;
        delete theirs.null_count;
        expect(s[column].null_count, column).toBeUndefined();
        expect(s[column].num_values, column).toBeUndefined();
      }
      // Parquet's min/max of long strings are truncated bounds, which RETURN_STATS leaves out.
      if (column === '"long"') {
        delete theirs.min;
        delete theirs.max;
      }
      expect(s[column], column).toMatchObject(theirs);
    }
    // Leaves of nested columns against DuckDB's own aggregates of the same paths.
    for (const [leaf, expr, from] of [['"ns"."x"', 'ns.x', 't'], ['"ns"."y"."z"', 'ns.y.z', 't'], ['"li"."element"', 'e', '(SELECT unnest(li) AS e FROM t)'],
      ['"mp"."value"', 'v', '(SELECT unnest(map_values(mp)) AS v FROM t)']]) {
      const [[min, max, nulls, n]] = await rows(conn, `SELECT min(${expr})::VARCHAR, max(${expr})::VARCHAR, count(*) - count(${expr}), count(*) FROM ${from}`);
      expect(s[leaf], leaf).toMatchObject(leaf.startsWith('"ns"') ? { min, max, null_count: String(nulls), num_values: String(n) } : { min, max });
    }
  });

  it('reports an empty file and one row per partition file', async () => {
    const [[, count, size, , stats]] = await rows(conn, `COPY (SELECT i FROM t WHERE false) TO ${sqlString(`${dir}/empty.vtx`)} (FORMAT vortex, RETURN_STATS)`);
    expect(count).toBe(0n);
    expect(size).toBe(BigInt(statSync(`${dir}/empty.vtx`).size));
    expect(columnStats(stats)).toEqual({ '"i"': { column_size_bytes: '0', null_count: '0', num_values: '0' } });
    const files = await rows(conn, `COPY t TO ${sqlString(`${dir}/parts`)} (FORMAT vortex, PARTITION_BY (p), RETURN_STATS)`);
    expect(files.length).toBe(3);
    for (const [file, count] of files) {
      expect(count).toBe(await rows(conn, `SELECT count(*) FROM vortex_scan(${sqlString(String(file))})`).then((r) => r[0][0]));
    }
  });
});
