import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, isPushed, openDb, rows, sqlString, tempDir } from './helpers';

// Files whose schemas differ (issue 24), against read_parquet over the same data: every query
// below is asked of vortex_scan and of read_parquet with the same options, and the answers
// (column names and types, rows, or the fact of an error) must be equal.
//   - default: the first file's columns, later files matched by name and cast to its types;
//   - union_by_name := true: all columns, widened with DuckDB's rules, NULL where a file lacks one.

const FILES: Record<string, string> = {
  a: `SELECT i::INTEGER AS x, 'a' || i AS y FROM range(5) r(i)`,
  b: `SELECT (i * 1000000000000)::BIGINT AS x, i / 4 AS z FROM range(4) r(i)`, // y missing, z added, x wider
  c: `SELECT 'c' || i AS y, i::INTEGER AS x FROM range(3) r(i)`, // reordered
  d: `SELECT (i + 0.5)::DOUBLE AS x, 'd' AS y FROM range(3) r(i)`, // x DOUBLE
  e: `SELECT (i * 7)::VARCHAR AS x, 'e' AS Y FROM range(2) r(i)`, // x VARCHAR; Y differs in case
  f: `SELECT (i + 0.25)::DECIMAL(10,2) AS x, NULL::VARCHAR AS y FROM range(3) r(i)`,
  g: `SELECT (i + 0.125)::DECIMAL(18,4) AS x FROM range(3) r(i)`,
  h: `SELECT DATE '2024-01-01' + i::INTEGER AS t FROM range(3) r(i)`,
  i: `SELECT TIMESTAMP '2024-02-01 10:30:00' + INTERVAL (i) HOUR AS t FROM range(3) r(i)`,
  j: `SELECT i::UINTEGER AS x FROM range(3) r(i)`,
  k: `SELECT -i::TINYINT AS x FROM range(3) r(i)`,
  l: `SELECT (i + 4000000000)::UBIGINT AS x FROM range(2) r(i)`,
  m: `SELECT (i + 0.5)::FLOAT AS x FROM range(2) r(i)`,
  n: `SELECT [i, i + 1] AS l, {'p': i} AS s, i::INTEGER AS x FROM range(2) r(i)`,
  o: `SELECT i::BIGINT AS x, [i] AS l FROM range(2) r(i)`,
};

describe('files whose schemas differ, as read_parquet reads them', () => {
  const dir = tempDir('vtx-union-');
  let conn: DuckDBConnection;
  const vtx = (names: string[]) => `[${names.map((n) => sqlString(join(dir, `${n}.vtx`))).join(', ')}]`;
  const pq = (names: string[]) => `[${names.map((n) => sqlString(join(dir, `${n}.parquet`))).join(', ')}]`;
  /** The same query over vortex_scan and over read_parquet. */
  async function both(names: string[], opts: string, query = 'SELECT * FROM @SRC ORDER BY ALL'): Promise<[string, string]> {
    const v = await answerText(conn, query.replace('@SRC', `vortex_scan(${vtx(names)}${opts})`));
    const p = await answerText(conn, query.replace('@SRC', `read_parquet(${pq(names)}${opts})`));
    return [v, p];
  }

  beforeAll(async () => {
    ({ conn } = await openDb());
    for (const [name, sql] of Object.entries(FILES)) {
      await conn.run(`COPY (${sql}) TO ${sqlString(join(dir, `${name}.vtx`))} (FORMAT vortex)`);
      await conn.run(`COPY (${sql}) TO ${sqlString(join(dir, `${name}.parquet`))} (FORMAT parquet)`);
    }
  });

  const UNION: string[][] = [
    ['a', 'b'], ['b', 'a'], ['a', 'c'], ['c', 'a'], ['a', 'b', 'c'], ['a', 'd'], ['d', 'a'], ['a', 'e'], ['e', 'a', 'b'],
    ['f', 'g'], ['g', 'f'], ['a', 'f', 'g'], ['h', 'i'], ['i', 'h'], ['j', 'k'], ['k', 'l'], ['j', 'l', 'k'], ['k', 'm'],
    ['m', 'f'], ['a', 'h'], ['n', 'a'], ['a', 'n', 'c'],
  ];

  it.each(UNION.map((f) => [f.join('+'), f]))('union_by_name := true over %s equals read_parquet', async (_label, names) => {
    const [v, p] = await both(names as string[], ', union_by_name := true');
    expect(v).not.toMatch(/^error/);
    expect(v).toBe(p);
  });

  const BY_POSITION: string[][] = [['a', 'c'], ['c', 'a'], ['a', 'd'], ['d', 'a'], ['a', 'e'], ['g', 'f'], ['h', 'i'], ['i', 'h'], ['a', 'c', 'd']];

  it.each(BY_POSITION.map((f) => [f.join('+'), f]))('without union_by_name, %s takes the first file\'s columns and types, as read_parquet', async (_label, names) => {
    const [v, p] = await both(names as string[], '');
    expect(v).not.toMatch(/^error/);
    expect(v).toBe(p);
  });

  it('without union_by_name, a column missing from a later file is an error naming it and the option, as for read_parquet', async () => {
    for (const names of [['a', 'b'], ['b', 'a'], ['n', 'a'], ['f', 'g']]) {
      const [v, p] = await both(names, '');
      expect(p).toMatch(/^error: .*schema mismatch in glob: column "\w" was read from the original file/);
      expect(v).toMatch(/^error: .*schema mismatch in glob: column "\w" was read from the original file .* but could not be found in file .*union_by_name := true/);
    }
  });

  it('a value the first file\'s type cannot hold fails the query, as for read_parquet', async () => {
    await conn.run(`COPY (SELECT 'seven' AS x, 'z' AS y) TO ${sqlString(join(dir, 'bad.vtx'))} (FORMAT vortex)`);
    await conn.run(`COPY (SELECT 'seven' AS x, 'z' AS y) TO ${sqlString(join(dir, 'bad.parquet'))} (FORMAT parquet)`);
    const [v, p] = await both(['a', 'bad'], '');
    expect(p).toMatch(/^error: .*Could not convert string 'seven' to INT32/);
    expect(v).toMatch(/^error: .*Could not convert string 'seven' to INT32/);
  });

  it('aggregates, filters and GROUP BY over differing files equal read_parquet and are left to DuckDB (not pushed)', async () => {
    const queries = [
      'SELECT count(*), count(x), sum(x), min(x), max(x), avg(x) FROM @SRC',
      'SELECT count(y), count(z), sum(z), min(y), max(y) FROM @SRC',
      'SELECT count(*), sum(x) FROM @SRC WHERE x > 2',
      'SELECT count(*) FROM @SRC WHERE y IS NULL',
      'SELECT count(*) FROM @SRC WHERE z IS NOT NULL AND x >= 0',
      "SELECT count(*), sum(x) FROM @SRC WHERE y = 'a3' OR y IS NULL",
      'SELECT y IS NULL AS missing, count(*), sum(x) FROM @SRC GROUP BY ALL ORDER BY ALL',
      'SELECT x, y, z FROM @SRC ORDER BY x DESC LIMIT 3',
      "SELECT regexp_extract(filename, '(\\w)\\.\\w+$', 1) AS f, count(*), sum(x) FROM @SRC GROUP BY ALL ORDER BY ALL",
    ];
    for (const names of [['a', 'b', 'c'], ['b', 'c', 'a']]) {
      for (const q of queries) {
        const [v, p] = await both(names, ', union_by_name := true, filename := true', q);
        expect(v, q).not.toMatch(/^error/);
        expect(v, q).toBe(p);
        if (/count|sum|min|max|avg/.test(q)) expect(await isPushed(conn, q.replace('@SRC', `vortex_scan(${vtx(names)}, union_by_name := true)`)), q).toBe(false);
      }
    }
    const plan = await explain(conn, `SELECT sum(x) FROM vortex_scan(${vtx(['a', 'b'])}, union_by_name := true)`);
    expect(plan).toMatch(/Not Pushed[\s\S]*schemas differ/);
    // Widened without a missing column (INTEGER and DOUBLE): still DuckDB's.
    const [v, p] = await both(['a', 'd'], ', union_by_name := true', 'SELECT sum(x), min(x), max(x), count(x) FROM @SRC');
    expect(v).toBe(p);
    expect(await isPushed(conn, `SELECT sum(x) FROM vortex_scan(${vtx(['a', 'd'])}, union_by_name := true)`)).toBe(false);
  });

  it('files of one schema are pushed as before, with or without union_by_name', async () => {
    for (const opts of ['', ', union_by_name := true']) {
      const q = `SELECT count(*), sum(x), min(x), max(x) FROM vortex_scan(${vtx(['a', 'a'])}${opts})`;
      expect(await isPushed(conn, q), opts).toBe(true);
      expect(await rows(conn, q)).toEqual([[10n, 20n, 0, 4]]);
    }
  });

  it('globs and the replacement scan combine files as read_parquet does', async () => {
    const g = join(dir, 'glob');
    mkdirSync(g);
    for (const name of ['a', 'b', 'c']) {
      await conn.run(`COPY (${FILES[name]}) TO ${sqlString(join(g, `${name}.vtx`))} (FORMAT vortex)`);
      await conn.run(`COPY (${FILES[name]}) TO ${sqlString(join(g, `${name}.parquet`))} (FORMAT parquet)`);
    }
    const v = await answerText(conn, `SELECT * FROM vortex_scan(${sqlString(join(g, '*.vtx'))}, union_by_name := true) ORDER BY ALL`);
    const p = await answerText(conn, `SELECT * FROM read_parquet(${sqlString(join(g, '*.parquet'))}, union_by_name := true) ORDER BY ALL`);
    expect(v).toBe(p);
    const vr = await answerText(conn, `SELECT * FROM @SRC{sqlString(join(g, '*.vtx'))} ORDER BY ALL`);
    const pr = await answerText(conn, `SELECT * FROM @SRC{sqlString(join(g, '*.parquet'))} ORDER BY ALL`);
    expect(vr.startsWith('error') && pr.startsWith('error')).toBe(true);
  });

  it('hive partitions and union_by_name together, as read_parquet', async () => {
    for (const [part, name] of [['k=1', 'a'], ['k=2', 'b']]) {
      mkdirSync(join(dir, 'hive', part), { recursive: true });
      await conn.run(`COPY (${FILES[name]}) TO ${sqlString(join(dir, 'hive', part, 'f.vtx'))} (FORMAT vortex)`);
      await conn.run(`COPY (${FILES[name]}) TO ${sqlString(join(dir, 'hive', part, 'f.parquet'))} (FORMAT parquet)`);
    }
    for (const q of ['SELECT * FROM @SRC ORDER BY ALL', 'SELECT k, count(*), sum(x), count(y) FROM @SRC WHERE k = 2 GROUP BY k']) {
      const v = await answerText(conn, q.replace('@SRC', `vortex_scan(${sqlString(join(dir, 'hive', '*', '*.vtx'))}, union_by_name := true)`));
      const p = await answerText(conn, q.replace('@SRC', `read_parquet(${sqlString(join(dir, 'hive', '*', '*.parquet'))}, union_by_name := true)`));
      expect(v, q).not.toMatch(/^error/);
      expect(v, q).toBe(p);
    }
  });

  it('a prepared statement over a union answers over the files as they are when it runs', async () => {
    const u = join(dir, 'prep');
    mkdirSync(u);
    await conn.run(`COPY (${FILES.a}) TO ${sqlString(join(u, 'a.vtx'))} (FORMAT vortex)`);
    await conn.run(`COPY (${FILES.b}) TO ${sqlString(join(u, 'b.vtx'))} (FORMAT vortex)`);
    const stmt = await conn.prepare(`SELECT count(*), sum(x), count(y), count(z) FROM vortex_scan(${sqlString(join(u, '*.vtx'))}, union_by_name := true)`);
    expect((await stmt.runAndReadAll()).getRowsJS()).toEqual([[9n, 6000000000010n, 5n, 4n]]);
    await conn.run(`COPY (${FILES.c}) TO ${sqlString(join(u, 'c.vtx'))} (FORMAT vortex)`);
    expect((await stmt.runAndReadAll()).getRowsJS()).toEqual([[12n, 6000000000013n, 8n, 4n]]);
  });
});
