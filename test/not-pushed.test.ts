import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { explain, isPushed, openDb, rows, show, sqlString, tempDir } from './helpers';

// Queries the rules must leave to DuckDB: each runs unpushed and still gives DuckDB's answer.
describe('queries that are not pushed stay correct', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let vtx: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    await conn.run(`CREATE TABLE t AS SELECT i % 7 AS g, i AS x, (i * 0.25)::DOUBLE AS d,
      CASE WHEN i % 5 = 0 THEN NULL ELSE chr((65 + (i % 26))::INTEGER) || chr((97 + (i % 26))::INTEGER) END AS s
      FROM range(10000) r(i)`);
    const file = `${dir}/t.vtx`;
    await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    vtx = `vortex_scan(${sqlString(file)})`;
  });

  async function same(sqlOf: (from: string) => string, expectPushed: boolean | 'partly' = false) {
    const q = sqlOf(vtx);
    if (expectPushed === 'partly') {
      const plan = await explain(conn, q);
      expect(plan).toContain('Pushed Aggregates');
      expect(plan).toContain('AGGREGATE');
    } else {
      expect(await isPushed(conn, q)).toBe(expectPushed);
    }
    const a = (await rows(conn, q)).map((r) => r.map(show).join('|')).sort();
    const b = (await rows(conn, sqlOf('t'))).map((r) => r.map(show).join('|')).sort();
    expect(a).toEqual(b);
  }

  // Grouped pushdown takes keys with few groups per zone (g here); a group per row stays with DuckDB.
  it('GROUP BY a key with a group per row', () => same((f) => `SELECT x, sum(d), min(s), count(*) FROM ${f} GROUP BY x`));
  it('GROUP BY a key with few groups', () => same((f) => `SELECT g, sum(x), min(x), count(*) FROM ${f} GROUP BY g`, true));
  it('DISTINCT aggregates', () => same((f) => `SELECT count(DISTINCT g), sum(DISTINCT g) FROM ${f}`));
  it('FILTER clause', () => same((f) => `SELECT sum(x) FILTER (WHERE g = 1), count(*) FROM ${f}`));
  it('ORDER BY inside an order-sensitive aggregate', () => same((f) => `SELECT first(x ORDER BY d DESC), count(*) FROM ${f}`));
  // DuckDB drops ORDER BY from order-insensitive aggregates before we see them: pushing is right.
  it('ORDER BY inside min, which DuckDB removes', () => same((f) => `SELECT min(x ORDER BY d) FROM ${f}`, true));
  it('an expression argument', () => same((f) => `SELECT sum(x * 2), max(x + 1) FROM ${f}`));
  it('sum(x + 1) however DuckDB rewrites it', async () => {
    // DuckDB may rewrite sum(x + 1) into sum(x) + count(x); either way the answer must hold.
    const q = (f: string) => `SELECT sum(x + 1) FROM ${f}`;
    expect(show((await rows(conn, q(vtx)))[0][0])).toBe(show((await rows(conn, q('t')))[0][0]));
  });
  it('a WHERE clause DuckDB pushes into the scan is pushed with it', () => same((f) => `SELECT sum(x), count(*) FROM ${f} WHERE x > 5000`, true));
  it('a WHERE clause DuckDB keeps above the scan, with expressions left to it', async () => {
    await conn.run('SET vortex_pushdown_expressions = false');
    await same((f) => `SELECT sum(x), count(*) FROM ${f} WHERE x > 5000 OR g = 1`);
    await conn.run('RESET vortex_pushdown_expressions');
  });
  it('a WHERE on an expression that may raise an error', () => same((f) => `SELECT sum(x) FROM ${f} WHERE (x * x) % 3 = 0`));
  it('a join above the scan', () => same((f) => `SELECT sum(a.x) FROM ${f} a JOIN (SELECT 3 AS g) b ON a.g = b.g`));
  it('a subquery: the plain part is pushed, the part filtered on an expression is not', () =>
    same((f) => `SELECT (SELECT max(x) FROM ${f}) + (SELECT count(*) FROM ${f} WHERE g + 1 = 3)`, 'partly'));
  it('LIMIT below the aggregate', () => same((f) => `SELECT sum(x) FROM (SELECT x FROM ${f} LIMIT 10)`));
  it('float min/max with every flag on', async () => {
    await conn.run('SET vortex_pushdown = true');
    await same((f) => `SELECT min(d), max(d) FROM ${f}`);
    await same((f) => `SELECT sum(x), min(d) FROM ${f}`);
  });
  it('a string column under a collation', async () => {
    await conn.run("SET default_collation = 'nocase'");
    try {
      await same((f) => `SELECT min(s), max(s) FROM ${f}`);
    } finally {
      await conn.run("SET default_collation = ''");
    }
    await same((f) => `SELECT min(s COLLATE nocase), max(s COLLATE nocase) FROM ${f}`);
  });
  it('aggregates that are not on the allow-list', () => same((f) => `SELECT arg_max(s, x), string_agg(s, ',' ORDER BY x), bit_or(x) FROM ${f}`));
  it('and the same plain query is pushed', () => same((f) => `SELECT sum(x), min(s), max(s), count(*) FROM ${f}`, true));
});
