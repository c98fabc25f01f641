// An ordered COPY ... (FORMAT vortex) from a cheap source, on up to 4 threads, is fed by one thread
// and encodes its zones on DuckDB's threads (native/duckdb/copy/copy_execution.cpp); elsewhere it
// keeps DuckDB's batch copy. Both write the source's rows in its order, value for value, and an
// encoding that fails on a DuckDB thread fails the COPY with its message, leaving the old file.
//   VORTEX_TEST_FAULT=copy_encode_zone   (test hook) every zone's encoding throws
import type { DuckDBConnection } from '@duckdb/node-api';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { explain, openDb, scalar, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-copy-execution-');
const COLUMNS = ['i', 's', 'd', 'm', 'ts', 'l', 'st', 'txt'];
let conn: DuckDBConnection;

afterEach(() => {
  delete process.env.VORTEX_TEST_FAULT;
});

beforeAll(async () => {
  ({ conn } = await openDb());
  // Sorted, repeated, NULL-bearing, nested and long values, over several of DuckDB's row groups.
  await conn.run(`CREATE TABLE t AS SELECT i,
      CASE WHEN i % 11 = 0 THEN NULL ELSE ['ant', 'bee', 'cat'][1 + (hash(i) % 3)::INTEGER] END AS s,
      CASE WHEN i % 13 = 0 THEN NULL ELSE (hash(i * 7) % 100000)::DOUBLE / 7 END AS d,
      ((hash(i * 3) % 1000000)::BIGINT * 0.01)::DECIMAL(12, 2) AS m,
      TIMESTAMP '2026-01-01' + to_seconds(i) AS ts,
      CASE WHEN i % 17 = 0 THEN NULL ELSE [i % 5, i % 7] END AS l,
      {'a': i % 100, 'b': CASE WHEN i % 9 = 0 THEN NULL ELSE 'v' || (i % 4) END} AS st,
      repeat(md5(i::VARCHAR), 1 + (i % 3)::INTEGER) AS txt
    FROM range(300000) r(i)`);
});

/** Rows of `file` that differ from t's row at the same position, and the file's row count. */
async function differences(file: string): Promise<[bigint, bigint]> {
  const cols = (alias: string) => COLUMNS.map((c) => `${alias}.${c}`).join(', ');
  const differing = await scalar(conn, `SELECT count(*) FROM (SELECT rowid AS n, * FROM t) a
    FULL JOIN (SELECT file_row_number AS n, * FROM vortex_scan(${sqlString(file)}, file_row_number := true)) b USING (n)
    WHERE row(${cols('a')}) IS DISTINCT FROM row(${cols('b')})`);
  const count = await scalar(conn, `SELECT count(*) FROM vortex_scan(${sqlString(file)})`);
  return [differing as bigint, count as bigint];
}

const copyOperator = async (sql: string) => {
  const plan = await explain(conn, sql);
  return plan.includes('BATCH_COPY_TO_FILE') ? 'batch' : plan.includes('COPY_TO_FILE') ? 'fed by one thread' : plan;
};

describe('COPY fed by one thread', () => {
  it('is planned for a table, a .vtx or Parquet file read whole, or sorted rows, on up to 4 threads', async () => {
    const parquet = join(dir, 'src.parquet');
    const vtx = join(dir, 'src.vtx');
    await conn.run(`COPY t TO ${sqlString(parquet)} (FORMAT parquet)`);
    await conn.run(`COPY t TO ${sqlString(vtx)} (FORMAT vortex)`);
    const target = sqlString(join(dir, 'plan.vtx'));
    await conn.run('SET threads = 4');
    for (const source of ['t', `(SELECT s, i FROM t)`, `(FROM t WHERE i > 100)`, `(FROM t ORDER BY d)`,
      `(FROM t ORDER BY d LIMIT 10)`, `(FROM read_parquet(${sqlString(parquet)}))`, `(FROM vortex_scan(${sqlString(vtx)}))`]) {
      expect(await copyOperator(`COPY ${source} TO ${target} (FORMAT vortex)`), source).toBe('fed by one thread');
    }
    // Computing or parsing on one thread would cost more than the batch copy saves.
    for (const source of ['(SELECT i + 1, s FROM t)', '(SELECT upper(s) FROM t)',
      `(FROM read_csv(${sqlString(join(dir, 'x.csv'))}))`]) {
      if (source.includes('read_csv')) writeFileSync(join(dir, 'x.csv'), 'a,b\n1,2\n');
      expect(await copyOperator(`COPY ${source} TO ${target} (FORMAT vortex)`), source).toBe('batch');
    }
    // Parquet keeps DuckDB's plan; so do vortex COPYs on more threads than one can feed.
    expect(await copyOperator(`COPY t TO ${sqlString(join(dir, 'plan.parquet'))} (FORMAT parquet)`)).toBe('batch');
    await conn.run('SET threads = 8');
    expect(await copyOperator(`COPY t TO ${target} (FORMAT vortex)`)).toBe('batch');
    await conn.run('RESET threads');
  });

  it('writes the rows in order, value for value, as the batch copy does, on 1 to 4 threads and any zone size', async () => {
    for (const threads of [1, 2, 3, 4, 8]) {
      await conn.run(`SET threads = ${threads}`);
      for (const zone of ['', ', ROW_GROUP_SIZE 1000', ', ROW_GROUP_SIZE 250000']) {
        const file = join(dir, `order-${threads}-${zone.length}.vtx`);
        await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex${zone})`);
        expect(await differences(file), `${threads} threads${zone}`).toEqual([0n, 300000n]);
      }
    }
    // Sorted rows, as written for zone maps.
    await conn.run('SET threads = 2');
    const sorted = join(dir, 'sorted.vtx');
    await conn.run(`COPY (FROM t ORDER BY ts DESC) TO ${sqlString(sorted)} (FORMAT vortex, ROW_GROUP_SIZE 5000)`);
    expect(await scalar(conn, `SELECT count(*) FROM (SELECT ts, lag(ts) OVER (ORDER BY file_row_number) AS before
      FROM vortex_scan(${sqlString(sorted)}, file_row_number := true)) WHERE before < ts`)).toBe(0n);
    await conn.run('RESET threads');
  });

  it('writes nested values of filtered rows (structs sliced with their fields) as DuckDB holds them', async () => {
    // A table scan under a filter hands on sliced vectors: a struct's fields are sliced with it, so a
    // field's row is the struct's row before the slice (the soak found fields read twice through it).
    await conn.run(`CREATE TABLE nest AS SELECT i,
        {'a': i % 100, 'b': CASE WHEN i % 9 = 0 THEN NULL ELSE 'v' || (i % 5) END, 'c': {'d': i % 7, 'e': [i % 3, i % 5]}} AS st,
        CASE WHEN i % 13 = 0 THEN NULL ELSE [{'x': i % 4, 'y': 'w' || (i % 6)}, {'x': i % 8, 'y': NULL}] END AS ls,
        MAP {'k' || (i % 3): i % 10} AS mp,
        CASE WHEN i % 2 = 0 THEN union_value(n := (i % 50)::INTEGER)::UNION(n INTEGER, t VARCHAR)
          ELSE union_value(t := 's' || (i % 20))::UNION(n INTEGER, t VARCHAR) END AS un,
        [{'p': (i % 11)::INTEGER}, {'p': NULL}]::STRUCT(p INTEGER)[2] AS arr
      FROM range(200000) r(i)`);
    const source = 'SELECT * FROM nest WHERE i >= 1001 AND i < 150007';
    for (const [threads, ordered] of [[1, true], [2, true], [8, true], [2, false]] as const) {
      await conn.run(`SET threads = ${threads}`);
      await conn.run(`SET preserve_insertion_order = ${ordered}`);
      const file = sqlString(join(dir, `nest-${threads}-${ordered}.vtx`));
      await conn.run(`COPY (${source}) TO ${file} (FORMAT vortex, ROW_GROUP_SIZE 3000)`);
      const extra = await scalar(conn, `SELECT count(*) FROM (FROM vortex_scan(${file}) EXCEPT ALL ${source})`);
      const missing = await scalar(conn, `SELECT count(*) FROM (${source} EXCEPT ALL FROM vortex_scan(${file}))`);
      expect([extra, missing], `${threads} threads, ordered ${ordered}`).toEqual([0n, 0n]);
    }
    await conn.run('RESET threads');
    await conn.run('RESET preserve_insertion_order');
  });

  it('fails with the encoding\'s error, from whichever thread met it, and leaves the old file', async () => {
    for (const threads of [1, 2, 4, 8]) {
      await conn.run(`SET threads = ${threads}`);
      const target = join(dir, `fault-${threads}.vtx`);
      await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(target)} (FORMAT vortex)`);
      const old = readFileSync(target);
      process.env.VORTEX_TEST_FAULT = 'copy_encode_zone';
      await expect(conn.run(`COPY t TO ${sqlString(target)} (FORMAT vortex, ROW_GROUP_SIZE 2000)`)).rejects.toThrow(/injected failure while encoding a zone/);
      delete process.env.VORTEX_TEST_FAULT;
      expect(readFileSync(target).equals(old), `${threads} threads`).toBe(true);
      expect(readdirSync(dir).filter((f) => f.startsWith(`fault-${threads}.vtx.tmp-`))).toEqual([]);
      // The connection goes on: the next COPY is whole.
      await conn.run(`COPY t TO ${sqlString(target)} (FORMAT vortex)`);
      expect(await differences(target)).toEqual([0n, 300000n]);
    }
    await conn.run('RESET threads');
  });

  it('leaves the old file when the query feeding it fails part way (DuckDB 1.5 removes a failed COPY\'s target)', async () => {
    await conn.run(`CREATE TABLE late AS SELECT i, CASE WHEN i = 250000 THEN 'x' ELSE i::VARCHAR END AS n FROM range(300000) r(i)`);
    for (const threads of [1, 2, 8]) {
      await conn.run(`SET threads = ${threads}`);
      const target = join(dir, `late-${threads}.vtx`);
      await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(target)} (FORMAT vortex)`);
      const old = readFileSync(target);
      // A cast of a column: fed by one thread on up to 4 threads, failing at row 250,000.
      await expect(conn.run(`COPY (SELECT i, n::INTEGER AS n FROM late) TO ${sqlString(target)} (FORMAT vortex, ROW_GROUP_SIZE 2000)`))
        .rejects.toThrow(/Could not convert string 'x'/);
      expect(readFileSync(target).equals(old), `${threads} threads`).toBe(true);
      expect(readdirSync(dir).filter((f) => f.startsWith(`late-${threads}.vtx.tmp-`))).toEqual([]);
    }
    await conn.run('RESET threads');
  });
});
