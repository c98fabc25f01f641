import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pushedAggregates, pushedLines } from '../src/explain';
import { setPushdown } from '../src/index';
import { answerText, explain, openDb, rows, sqlString, tempDir } from './helpers';

// A query's ORDER BY over the keys of a pushed GROUP BY is taken into the grouped scan, which
// emits its groups sorted (native/duckdb/pushdown/grouped_order.cpp). The rows must come out in exactly
// the order DuckDB's own sort gives, on every thread count, with pushdown on and off and
// against a native table; orders the scan cannot reproduce stay DuckDB's.

let conn: DuckDBConnection;
const dir = tempDir('vtx-order-');

beforeAll(async () => {
  ({ conn } = await openDb());
  // The pushed paths themselves are under test: pushed wherever the rules allow, even where the
  // cost model would leave the query to DuckDB (test/cost-model.test.ts tests that decision).
  await conn.run('SET vortex_pushdown_cost_based = false');
});

afterEach(async () => {
  for (const s of ['threads', 'default_null_order', 'default_order', 'preserve_insertion_order', 'vortex_pushdown', 'vortex_pushdown_order']) {
    await conn.run(`RESET ${s}`);
  }
});

/** EXPLAIN shows the order inside the scan and no sort operator. */
async function absorbed(sql: string): Promise<boolean> {
  const plan = await explain(conn, sql);
  const inScan = plan.includes('Pushed Order');
  if (inScan && /ORDER_BY|TOP_N/.test(plan)) throw new Error(`order both pushed and sorted by DuckDB:\n${plan}`);
  if (inScan && !plan.includes('Pushed Groups')) throw new Error(`order pushed without groups:\n${plan}`);
  return inScan;
}

/** The same answer, row order included, as DuckDB gives for its own table; on 1, 2 and 4 threads and unpushed. */
async function expectSameOrder(query: (from: string) => string, scan: string, table: string): Promise<void> {
  const native = await answerText(conn, query(table));
  expect(native.startsWith('error'), native).toBe(false);
  for (const threads of [1, 2, 4]) {
    await conn.run(`SET threads = ${threads}`);
    expect(await answerText(conn, query(scan)), `${query(scan)} (threads=${threads})`).toBe(native);
  }
  await conn.run('SET vortex_pushdown = false');
  expect(await answerText(conn, query(scan)), `${query(scan)} (not pushed)`).toBe(native);
  await conn.run('RESET vortex_pushdown');
}

describe('ORDER BY on group keys, taken into the grouped scan', () => {
  // Keys constant over runs of 1,000 rows and zones of about 100, so that nine zones in ten
  // have constant keys and every query here is pushed; a tenth of the runs have a NULL key. Strings sort bytewise: '' < 'B' < 'a' < 'ab' < 'é'.
  const scan = `vortex_scan(${sqlString(join(dir, 'keys-*.vtx'))})`;
  const table = 'keys';
  beforeAll(async () => {
    const z = 'i // 1000';
    const nul = (e: string) => `CASE WHEN (${z}) % 10 = 3 THEN NULL ELSE ${e} END`;
    await conn.run(`CREATE TABLE keys AS SELECT
        ${nul(`((${z}) * 7919 % 23)::INTEGER - 11`)} AS n,
        ${nul(`['', 'a', 'ab', 'B', 'é', 'zz', 'a b'][1 + ((${z}) * 31 % 7)::INTEGER]`)} AS s,
        ${nul(`DATE '2024-01-01' + ((${z}) * 13 % 17)::INTEGER`)} AS d,
        ${nul(`(${z}) % 3 = 0`)} AS b,
        ${nul(`(((${z}) * 37 % 29)::DECIMAL(10,2) / 4 - 3)::DECIMAL(10,2)`)} AS m,
        ${nul(`((${z}) % 5 - 2)::BIGINT * 3000000000000000000`)} AS w,
        ${nul(`('0000000' || ((${z}) * 17 % 9) || '-0000-0000-0000-' || lpad(((${z}) * 7 % 13)::VARCHAR, 12, 'f'))::UUID`)} AS u,
        ${nul(`repeat(['zé', 'z', 'a', ''][1 + ((${z}) % 4)::INTEGER], 12) || ((${z}) * 3 % 5)`)} AS l,
        (hash(i) % 1000)::BIGINT - 500 AS x
      FROM range(100000) t(i)`);
    for (const [f, where] of [[0, 'rowid < 45000'], [1, 'rowid >= 45000']] as const) {
      await conn.run(`COPY (SELECT * FROM keys WHERE ${where}) TO ${sqlString(join(dir, `keys-${f}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE 100)`);
    }
  });

  const ORDERS = [
    'n',
    'n DESC',
    'n NULLS FIRST',
    'n DESC NULLS LAST',
    's',
    's DESC NULLS FIRST',
    'd DESC',
    'b',
    'm',
    'w DESC',
    // Sorted by DuckDB's sort keys, so types beyond plain numbers follow DuckDB's own order:
    // UUIDs, strings too long for the compressed materialization.
    'u',
    'u DESC NULLS FIRST',
    'l DESC',
    'ALL',
    'ALL DESC',
  ];
  it.each(ORDERS)('GROUP BY one key ORDER BY %s', async (order) => {
    const key = order === 'ALL' || order === 'ALL DESC' ? 's' : order.split(' ')[0];
    const query = (from: string) => `SELECT ${key}, count(*), sum(x), min(x), avg(x) FROM ${from} GROUP BY ${key} ORDER BY ${order}`;
    expect(await absorbed(query(scan)), query(scan)).toBe(true);
    await expectSameOrder(query, scan, table);
  });

  const MULTI = [
    'SELECT n, s, count(*), sum(x) FROM SRC GROUP BY n, s ORDER BY n, s',
    'SELECT n, s, count(*), sum(x) FROM SRC GROUP BY n, s ORDER BY s DESC, n NULLS FIRST',
    'SELECT n, s, d, count(*) FROM SRC GROUP BY ALL ORDER BY ALL',
    'SELECT count(*) AS c, d, b FROM SRC GROUP BY d, b ORDER BY b DESC, d',
    'SELECT s AS label, max(x) FROM SRC GROUP BY s HAVING count(*) > 100 ORDER BY label',
    'SELECT n, m, count(*), min(x) FROM SRC WHERE x > 0 GROUP BY n, m ORDER BY m DESC, n DESC',
    // Once every key is ordered, the later terms cannot matter (groups are unique by key).
    'SELECT n, count(*) AS c, avg(x) AS a FROM SRC GROUP BY n ORDER BY n, a, c DESC',
  ];
  it.each(MULTI)('%s', async (shape) => {
    const query = (from: string) => shape.replace('SRC', from);
    expect(await absorbed(query(scan)), query(scan)).toBe(true);
    await expectSameOrder(query, scan, table);
  });

  it('shows the order in EXPLAIN, marked by vtx explain and not taken for an aggregate', async () => {
    const plan = await explain(conn, `SELECT s, n, count(*), sum(x) FROM ${scan} GROUP BY s, n ORDER BY n DESC, s`);
    expect(plan).toMatch(/Pushed Order:[\s│]*n DESC NULLS LAST[\s│]*s ASC NULLS LAST/);
    expect(pushedAggregates(plan)).toEqual(['count_star()', 'sum(x)']);
    const lines = plan.split('\n');
    const marked = [...pushedLines(plan)].map((i) => lines[i]);
    expect(marked.some((l) => l.includes('Pushed Order:'))).toBe(true);
    expect(marked.some((l) => l.includes('s ASC NULLS LAST'))).toBe(true);
  });

  it('orders by a part of the keys, ties in any order as DuckDB allows', async () => {
    const query = (from: string) => `SELECT n, s, count(*) FROM ${from} GROUP BY n, s ORDER BY n DESC`;
    expect(await absorbed(query(scan))).toBe(true);
    const native = await rows(conn, query(table));
    for (const threads of [1, 2, 4]) {
      await conn.run(`SET threads = ${threads}`);
      const pushed = await rows(conn, query(scan));
      expect(pushed.map((r) => r[0])).toEqual(native.map((r) => r[0]));
      const set = (rs: unknown[][]) => rs.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}` : v))).sort();
      expect(set(pushed)).toEqual(set(native));
    }
  });

  it('follows the default order and NULL order settings, as the binder resolved them', async () => {
    const query = (from: string) => `SELECT n, s, count(*) FROM ${from} GROUP BY n, s ORDER BY n, s DESC`;
    await conn.run("SET default_null_order = 'nulls_first'");
    expect(await absorbed(query(scan))).toBe(true);
    await expectSameOrder(query, scan, table);
    await conn.run("SET default_order = 'descending'");
    await conn.run("SET default_null_order = 'nulls_last_on_asc_first_on_desc'");
    await expectSameOrder((from) => `SELECT s, count(*) FROM ${from} GROUP BY s ORDER BY s`, scan, table);
  });

  it('emits many groups, over several vectors, in order', async () => {
    await conn.run(`CREATE TABLE many AS SELECT (4999 - i // 8)::INTEGER AS k, 'g' || (i // 8 % 977) AS t, i::BIGINT AS x FROM range(40000) t(i)`);
    const many = join(dir, 'many.vtx');
    await conn.run(`COPY many TO ${sqlString(many)} (FORMAT vortex, ROW_GROUP_SIZE 8)`);
    const src = `vortex_scan(${sqlString(many)})`;
    for (const order of ['k', 'k DESC', 't, k', 't DESC, k DESC']) {
      const query = (from: string) => `SELECT k, t, count(*), sum(x) FROM ${from} GROUP BY k, t ORDER BY ${order}`;
      expect(await absorbed(query(src)), order).toBe(true);
      await expectSameOrder(query, src, 'many');
    }
  });

  it('orders by hive partition keys', async () => {
    await conn.run(`CREATE TABLE hive AS SELECT (i % 4)::BIGINT - 1 AS yr, ['eu', 'us', 'ap'][1 + (i % 3)::INTEGER] AS region, i::BIGINT AS x FROM range(1200) t(i)`);
    for (const [yr, region] of (await rows(conn, 'SELECT DISTINCT yr, region FROM hive')) as Array<[bigint, string]>) {
      const d = join(dir, 'hive', `yr=${yr}`, `region=${region}`);
      mkdirSync(d, { recursive: true });
      await conn.run(`COPY (SELECT x FROM hive WHERE yr = ${yr} AND region = '${region}') TO ${sqlString(join(d, 'p.vtx'))} (FORMAT vortex)`);
    }
    const src = `vortex_scan(${sqlString(join(dir, 'hive', '*', '*', '*.vtx'))})`;
    for (const order of ['yr, region', 'region DESC, yr DESC', 'ALL']) {
      const query = (from: string) => `SELECT region, yr, count(*), sum(x) FROM ${from} GROUP BY region, yr ORDER BY ${order}`;
      expect(await absorbed(query(src)), order).toBe(true);
      await expectSameOrder(query, src, 'hive');
    }
  });
});

describe('orders the scan does not take stay DuckDB\'s, and correct', () => {
  const scan = `vortex_scan(${sqlString(join(dir, 'plain.vtx'))})`;
  const table = 'plain';
  beforeAll(async () => {
    await conn.run(`CREATE TABLE plain AS SELECT (i // 1000 % 13)::INTEGER AS k, 'S' || (i // 1000 % 5) AS s,
        (i // 1000 % 3)::DOUBLE AS f, i::BIGINT AS x FROM range(20000) t(i)`);
    await conn.run(`COPY plain TO ${sqlString(join(dir, 'plain.vtx'))} (FORMAT vortex, ROW_GROUP_SIZE 100)`);
  });
  const SHAPES = [
    // An aggregate before every key is ordered.
    'SELECT k, count(*) AS c FROM SRC GROUP BY k ORDER BY c DESC, k',
    'SELECT k, sum(x) AS t FROM SRC GROUP BY k ORDER BY t',
    // An expression, a collation.
    'SELECT k, count(*) FROM SRC GROUP BY k ORDER BY k % 5, k',
    'SELECT s, count(*) FROM SRC GROUP BY s ORDER BY s COLLATE nocase, s',
    // A float key (not grouped in the reader at all).
    'SELECT f, count(*) FROM SRC GROUP BY f ORDER BY f DESC',
    // Top-N and LIMIT above the sort: DuckDB's.
    'SELECT k, count(*) FROM SRC GROUP BY k ORDER BY k LIMIT 4',
    'SELECT * FROM (SELECT k, count(*) FROM SRC GROUP BY k ORDER BY k) LIMIT 3 OFFSET 2',
    // Not the query's own order: under a join.
    'SELECT a.k, a.c, b.c FROM (SELECT k, count(*) AS c FROM SRC GROUP BY k ORDER BY k) a JOIN (SELECT k, sum(x) AS c FROM SRC GROUP BY k) b USING (k) ORDER BY a.k',
  ];
  it.each(SHAPES)('%s', async (shape) => {
    const query = (from: string) => shape.replaceAll('SRC', from);
    expect(await absorbed(query(scan)), query(scan)).toBe(false);
    await expectSameOrder(query, scan, table);
  });

  it('has its own switch, vortex_pushdown_order, leaving the GROUP BY pushed', async () => {
    const query = (from: string) => `SELECT s, k, count(*) FROM ${from} GROUP BY s, k ORDER BY s, k DESC`;
    await setPushdown(conn, { order: false });
    expect(await absorbed(query(scan))).toBe(false);
    expect(await explain(conn, query(scan))).toContain('Pushed Groups');
    await expectSameOrder(query, scan, table);
    await setPushdown(conn, { order: true });
    expect(await absorbed(query(scan))).toBe(true);
  });

  it('leaves the sort to DuckDB where it does not preserve insertion order', async () => {
    const query = (from: string) => `SELECT k, s, count(*) FROM ${from} GROUP BY k, s ORDER BY k DESC, s`;
    expect(await absorbed(query(scan))).toBe(true);
    await conn.run('SET preserve_insertion_order = false');
    expect(await absorbed(query(scan))).toBe(false);
    await expectSameOrder(query, scan, table);
  });
});
