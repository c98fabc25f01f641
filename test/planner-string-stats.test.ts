import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, scalar, sqlString, tempDir } from './helpers';

// vortex_scan tells DuckDB's planner, for a VARCHAR column whose zones all list their distinct
// values, its bounds, its longest value and whether any value is not ASCII. DuckDB acts on them:
// its compressed materialization turns short strings into small integers inside hash tables and
// sorts (TPC-H q01 groups by two one-letter columns with a perfect hash). Every statistic must be
// the one DuckDB keeps for the same values in a table, and every answer a table's.

let conn: DuckDBConnection;
let dir: string;

// Columns of few values each (at most 32 a zone, so each zone lists them): one letter, up to
// seven bytes (DuckDB's integer forms), eight and more, non-ASCII, the empty string, NULLs.
const COLUMNS = `
  (['A', 'N', 'R'])[1 + (i % 3)] AS flag,
  (['F', 'O'])[1 + (i // 7 % 2)] AS status,
  (['AIR', 'MAIL', 'REG AIR', 'SHIP', 'TRUCK', 'FOB', 'RAIL'])[1 + (hash(i) % 7)::INTEGER] AS mode,
  (['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + (i % 5)] AS priority,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (['', 'é', 'ü', 'a', 'zz'])[1 + (i % 5)] END AS odd,
  CASE WHEN i % 4 = 0 THEN NULL ELSE (['x', 'y'])[1 + (i % 2)] END AS sparse,
  NULL::VARCHAR AS nothing,
  (i % 1000)::BIGINT AS k,
  i::BIGINT AS id`;

function scan(file: string): string {
  return `vortex_scan(${sqlString(file)})`;
}

/** DuckDB's statistics of `col`, without its approximate distinct count (a sketch either way). */
async function statsOf(from: string, col: string): Promise<string> {
  const s = String(await scalar(conn, `SELECT stats(${col}) FROM ${from} LIMIT 1`));
  return s.replace(/\[Approx Unique: \d+\]/, '');
}

let file: string;
let glob: string;
let mixed: string;

beforeAll(async () => {
  ({ conn } = await openDb());
  dir = tempDir('vtx-sstats-plan-');
  await conn.run(`CREATE TABLE t AS SELECT ${COLUMNS} FROM range(20000) r(i)`);
  file = join(dir, 't.vtx');
  await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 3000)`);
  // Three files of different values: the statistics span them all.
  for (let f = 0; f < 3; f++) {
    await conn.run(`COPY (SELECT ${COLUMNS.replace("['A', 'N', 'R']", `['A${f}', 'N', 'R']`)} FROM range(${f * 5000}, ${(f + 1) * 5000}) r(i))
      TO ${sqlString(join(dir, `g${f}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
  }
  glob = join(dir, 'g*.vtx');
  await conn.run(`CREATE TABLE g AS SELECT * FROM ${scan(glob)}`);
  // One file whose zones list their values, one whose `flag` has too many to list.
  await conn.run(`COPY (SELECT * FROM t WHERE id < 5000) TO ${sqlString(join(dir, 'm0.vtx'))} (FORMAT vortex)`);
  await conn.run(`COPY (SELECT * REPLACE ('v' || (id % 997)::VARCHAR AS flag) FROM t WHERE id >= 5000)
    TO ${sqlString(join(dir, 'm1.vtx'))} (FORMAT vortex)`);
  mixed = join(dir, 'm*.vtx');
  await conn.run(`CREATE TABLE m AS SELECT * FROM ${scan(mixed)}`);
});

describe('string statistics for the planner', () => {
  it.each(['flag', 'status', 'mode', 'priority', 'odd', 'sparse'])('%s: the statistics of a table of the same values', async (col) => {
    expect(await statsOf(scan(file), col)).toBe(await statsOf('t', col));
    expect(await statsOf(scan(glob), col)).toBe(await statsOf('g', col));
  });

  it('a column of NULLs alone: empty string statistics, as a table has', async () => {
    // Whether such a column "has no NULL" differs between DuckDB lines for tables (1.4 says it
    // may, 1.5 that it has none); the scan says it may, which is never wrong.
    const strings = (s: string) => s.replace(/\[Has Null.*$/, '');
    expect(strings(await statsOf(scan(file), 'nothing'))).toBe(strings(await statsOf('t', 'nothing')));
    expect(await statsOf(scan(file), 'nothing')).toMatch(/Has Null: true/);
  });

  it('a column with a zone that does not list its values reports no length', async () => {
    const s = await statsOf(scan(mixed), 'flag');
    expect(s).not.toMatch(/Max String Length: \d/);
    // The other columns of those files still do.
    expect(await statsOf(scan(mixed), 'mode')).toBe(await statsOf('m', 'mode'));
  });

  const QUERIES: Array<[string, (from: string) => string]> = [
    ['GROUP BY two one-letter columns', (f) => `SELECT flag, status, count(*), sum(k), min(id), max(id) FROM ${f} GROUP BY ALL ORDER BY ALL`],
    ['GROUP BY short and long strings', (f) => `SELECT mode, priority, count(*), sum(k) FROM ${f} GROUP BY ALL ORDER BY ALL`],
    ['GROUP BY non-ASCII, empty and NULL', (f) => `SELECT odd, sparse, count(*), count(odd) FROM ${f} GROUP BY ALL ORDER BY ALL`],
    ['DISTINCT', (f) => `SELECT DISTINCT mode, odd FROM ${f} ORDER BY ALL`],
    ['ORDER BY strings', (f) => `SELECT id, odd, mode FROM ${f} WHERE id % 97 = 0 ORDER BY odd DESC NULLS FIRST, mode, id`],
    ['a join on a short string key', (f) => `SELECT a.mode, count(*), sum(b.k) FROM ${f} a JOIN (SELECT DISTINCT mode, k FROM ${f} WHERE k < 3) b ON a.mode = b.mode WHERE a.id % 13 = 0 GROUP BY a.mode ORDER BY 1`],
    ['a filter outside the bounds', (f) => `SELECT count(*) FROM ${f} WHERE flag > 'S' OR mode < 'A' OR odd = 'zzz'`],
    ['min, max and length', (f) => `SELECT min(mode), max(mode), max(length(odd)), min(odd), max(odd) FROM ${f} WHERE k > 10`],
  ];

  it.each(QUERIES)('%s: the answer of a table', async (_name, query) => {
    for (const [from, table] of [[scan(file), 't'], [scan(glob), 'g'], [scan(mixed), 'm']] as const) {
      for (const pushdown of [true, false]) {
        await conn.run(`SET vortex_pushdown = ${pushdown}`);
        expect(await answerText(conn, query(from)), `${from} pushdown ${pushdown}`).toBe(await answerText(conn, query(table)));
      }
    }
    await conn.run('SET vortex_pushdown = true');
  });

  it('DuckDB compresses the short strings it groups by, as it does for a table', async () => {
    const q = (from: string) => `SELECT flag, status, count(*), sum(k) FROM ${from} GROUP BY ALL`;
    await conn.run('SET vortex_pushdown = false');
    const plan = await explain(conn, q(scan(file)));
    await conn.run('SET vortex_pushdown = true');
    expect(plan).toMatch(/PERFECT_HASH_GROUP_BY/);
    expect(await explain(conn, q('t'))).toMatch(/PERFECT_HASH_GROUP_BY/);
  });
});
