import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, sqlString, tempDir } from './helpers';

// GROUP BY answered inside the reader: for random key columns (NULL keys, clustered and random
// layouts, one and two keys, many zones, several files) and every allowed aggregate, pushed =
// not pushed = a DuckDB native table, rows compared after ORDER BY ALL, types included.

const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261130);
const RUNS = Number(process.env.VORTEX_FC_RUNS ?? 25);

let conn: DuckDBConnection;
const dir = tempDir('vtx-grouped-');
let n = 0;

beforeAll(async () => {
  ({ conn } = await openDb());
  // The pushed paths themselves are under test: pushed wherever the rules allow, even where the
  // cost model would leave the query to DuckDB (test/cost-model.test.ts tests that decision).
  await conn.run('SET vortex_pushdown_cost_based = false');
});

const outcome = (sql: string) => answerText(conn, sql);

async function pushedGrouped(sql: string): Promise<boolean> {
  const plan = await explain(conn, sql);
  return plan.includes('Pushed Groups') && !/HASH_GROUP_BY|PERFECT_HASH_GROUP_BY/.test(plan);
}

/** Writes `select` to `files` .vtx files (small zones, contiguous slices) and a native table. */
async function load(select: string, files: number, zone: number): Promise<{ scan: string; table: string; paths: string[] }> {
  const table = `g${n++}`;
  await conn.run(`CREATE TABLE ${table} AS ${select}`);
  const sub = join(dir, table);
  const total = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0][0]);
  const per = Math.ceil(total / files);
  const paths: string[] = [];
  for (let f = 0; f < files; f++) {
    paths.push(`${sub}-${f}.vtx`);
    await conn.run(`COPY (SELECT * FROM ${table} LIMIT ${per} OFFSET ${f * per}) TO ${sqlString(paths[f])} (FORMAT vortex, ROW_GROUP_SIZE ${zone})`);
  }
  return { scan: `vortex_scan(${sqlString(`${sub}-*.vtx`)})`, table, paths };
}

/**
 * The policy's floor, restated from the zone statistics vortex_metadata shows: pushed at least
 * when at most a quarter of the rows are in zones whose keys are not one value (or all NULL).
 * Zones of dictionary-coded or narrow-range keys with few groups per row count as cheap too
 * (see CheapToGroup in native/duckdb/pushdown/pushdown_optimizer.cpp), so more is pushed than this.
 */
async function mustPushGrouped(paths: string[], keys: string[]): Promise<boolean> {
  let total = 0n;
  let decoded = 0n;
  for (const p of paths) {
    const r = await conn.runAndReadAll(`SELECT zone, any_value(rows) AS rows,
        bool_and(null_count = rows OR (null_count = 0 AND min_max_exact AND min = max)) AS constant
      FROM vortex_metadata(${sqlString(p)}, verify := false) WHERE column_name IN (${keys.map(sqlString).join(', ')}) GROUP BY zone`);
    for (const [, rows, constant] of r.getRowsJS() as Array<[bigint, bigint, boolean]>) {
      total += rows;
      if (!constant) decoded += rows;
    }
  }
  return decoded * 4n <= total;
}

const KEY_TYPES: Array<{ type: string; expr: (v: string) => string }> = [
  { type: 'INTEGER', expr: (v) => `(${v})::INTEGER` },
  { type: 'BIGINT', expr: (v) => `(${v} * 1000000007)::BIGINT` },
  { type: 'SMALLINT', expr: (v) => `(${v} - 3)::SMALLINT` },
  { type: 'UTINYINT', expr: (v) => `(${v})::UTINYINT` },
  { type: 'VARCHAR', expr: (v) => `'key-' || (${v}) || CASE WHEN (${v}) % 3 = 0 THEN repeat('x', 40) ELSE '' END` },
  { type: 'DATE', expr: (v) => `DATE '2024-01-01' + (${v})::INTEGER` },
  { type: 'TIMESTAMP', expr: (v) => `TIMESTAMP '2024-01-01' + INTERVAL ((${v})) HOUR` },
  { type: 'BOOLEAN', expr: (v) => `(${v}) % 2 = 0` },
  { type: 'DECIMAL(10,2)', expr: (v) => `((${v}) / 4)::DECIMAL(10,2)` },
  { type: 'UUID', expr: (v) => `('00000000-0000-0000-0000-' || lpad((${v})::VARCHAR, 12, '0'))::UUID` },
];
const AGGS = ['count(*)', 'count(x)', 'sum(x)', 'avg(x)', 'min(x)', 'max(x)', 'min(s)', 'max(s)', 'count(s)', 'sum(d)', 'avg(d)', 'min(d)', 'max(d)'];

const spec = fc.record({
  keys: fc.array(fc.integer({ min: 0, max: KEY_TYPES.length - 1 }), { minLength: 1, maxLength: 2 }),
  distinct: fc.constantFrom(1, 2, 3, 8, 50),
  clustered: fc.boolean(),
  nullKeyEvery: fc.constantFrom(0, 5, 1),
  nullValueEvery: fc.constantFrom(0, 3, 1),
  rows: fc.constantFrom(1, 700, 3000),
  files: fc.constantFrom(1, 3),
  zone: fc.constantFrom(50, 100, 1000),
  threads: fc.constantFrom(1, 2),
  aggs: fc.subarray(AGGS, { minLength: 1, maxLength: 6 }),
});

describe('grouped pushdown, differential', () => {
  let pushedCount = 0;
  let decodedCount = 0;
  it('pushed = not pushed = native table', async () => {
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const keyVal = (k: number) => (s.clustered ? `(i * ${s.distinct} // ${s.rows}) + ${k}` : `(hash(i * ${k + 7}) % ${s.distinct})::BIGINT`);
        const nullable = (every: number, e: string) => (every === 0 ? e : `CASE WHEN i % ${every} = 0 THEN NULL ELSE ${e} END`);
        const cols = s.keys.map((t, k) => `${nullable(s.nullKeyEvery, KEY_TYPES[t].expr(keyVal(k)))} AS k${k}`);
        const select = `SELECT ${cols.join(', ')}, ${nullable(s.nullValueEvery, '(hash(i) % 100000)::BIGINT - 50000')} AS x,
                        ${nullable(s.nullValueEvery, "'v' || (hash(i * 5) % 1000)")} AS s,
                        ${nullable(s.nullValueEvery, '((hash(i * 3) % 20000)::DECIMAL(12,2) / 8)::DECIMAL(12,2)')} AS d
                        FROM range(${s.rows}) t(i)`;
        const { scan, table, paths } = await load(select, s.files, s.zone);
        const keys = s.keys.map((_t, k) => `k${k}`).join(', ');
        const floor = await mustPushGrouped(paths, s.keys.map((_t, k) => `k${k}`));
        const query = (from: string) => `SELECT ${keys}, ${s.aggs.join(', ')} FROM ${from} GROUP BY ${keys} ORDER BY ALL`;
        const native = await outcome(query(table));
        const pushed = await pushedGrouped(query(scan));
        if (floor) expect(pushed, query(scan)).toBe(true);
        if (pushed) pushedCount++;
        if (pushed && !floor) decodedCount++;
        await conn.run(`SET threads = ${s.threads}`);
        expect(await outcome(query(scan)), `${query(scan)} (threads=${s.threads})`).toBe(native);
        await conn.run('RESET threads');
        await conn.run('SET vortex_pushdown = false');
        expect(await outcome(query(scan)), `${query(scan)} (not pushed)`).toBe(native);
        await conn.run('SET vortex_pushdown = true');
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator must exercise the pushed path, not only the fallback.
    expect(pushedCount).toBeGreaterThan(RUNS / 5);
    // ... including queries pushed for their cheap decoded zones, not only constant ones (at the
    // full size: the reduced runs of the other DuckDB line's subset draw too few queries).
    if (RUNS >= 20) expect(decodedCount).toBeGreaterThan(0);
  });
});

describe('decoded zones grouped in the reader', () => {
  // Many zones in several files, keys that are not constant in any zone: dictionary-coded
  // strings with NULLs, a narrow integer range with NULLs, a wide-range BIGINT (hashed), two
  // keys together; every value path (integers, float sums, strings); one and two threads.
  let scan = '';
  let table = '';
  beforeAll(async () => {
    ({ scan, table } = await load(
      `SELECT CASE WHEN i % 13 = 0 THEN NULL ELSE ['red','orange','yellow','green','blue','indigo','violet','black'][1 + (hash(i) % 8)::INTEGER] END AS color,
              CASE WHEN i % 17 = 0 THEN NULL ELSE (hash(i * 3) % 5)::INTEGER - 2 END AS small,
              ((hash(i * 5) % 6)::BIGINT * 1000000007 - 3000000000)::BIGINT AS wide,
              CASE WHEN i % 7 = 0 THEN NULL ELSE (hash(i * 11) % 100000)::BIGINT - 50000 END AS x,
              ((hash(i * 13) % 1000)::DOUBLE - 500) AS f,
              CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (hash(i * 17) % 1000) END AS s,
              ((hash(i * 19) % 3)::BIGINT - 1) * 4000000000000000000 + (hash(i * 23) % 1000)::BIGINT AS big,
              ((hash(i * 29) % 2)::UBIGINT) * 17000000000000000000 + (hash(i * 31) % 1000)::UBIGINT AS ubig,
              CASE WHEN i % 11 = 0 THEN NULL ELSE ((hash(i * 37) % 256)::INTEGER - 128)::TINYINT END AS tiny
       FROM range(360000) t(i)`,
      3,
      40000,
    ));
  });
  const QUERIES = [
    'SELECT color, count(*), count(x), sum(x), min(x), max(x), avg(x) FROM SRC GROUP BY color',
    'SELECT small, count(*), sum(x), min(x), max(x), sum(f), avg(f), count(f) FROM SRC GROUP BY small',
    'SELECT wide, count(*), sum(x), min(s), max(s), count(s) FROM SRC GROUP BY wide',
    // Only counted: a string column's non-NULL rows per group, without its values summarised.
    'SELECT small, count(s), count(*) FROM SRC GROUP BY small',
    'SELECT color, small, count(*), sum(x), max(x) FROM SRC GROUP BY color, small',
    'SELECT small, wide, count(*), min(x) FROM SRC GROUP BY small, wide',
    'SELECT color, count(*), sum(x) FROM SRC WHERE x > 20000 GROUP BY color',
    // Per-zone sums past 64 bits: the running 64-bit sum spills into 128 bits.
    'SELECT color, sum(big), avg(big), min(big), max(big), sum(ubig), min(ubig), max(ubig) FROM SRC GROUP BY color',
    // Signed keys whose range spans zero (narrow as signed, as unsigned words not), each value
    // column asked for a bound alone or a sum alone, with NULLs and under a filter.
    'SELECT tiny, max(x), min(big), sum(ubig), count(*) FROM SRC GROUP BY tiny',
    'SELECT small, min(x), max(big), count(x) FROM SRC GROUP BY small',
    'SELECT tiny, max(x), sum(big), min(ubig) FROM SRC WHERE x > 0 GROUP BY tiny',
  ];
  it.each(QUERIES)('%s', async (shape) => {
    const sql = (from: string) => `${shape.replace('SRC', from)} ORDER BY ALL`;
    expect(await pushedGrouped(sql(scan)), sql(scan)).toBe(true);
    const native = await outcome(sql(table));
    for (const threads of [1, 2]) {
      await conn.run(`SET threads = ${threads}`);
      expect(await outcome(sql(scan)), `${sql(scan)} (threads=${threads})`).toBe(native);
    }
    await conn.run('RESET threads');
  });
  it('high-cardinality keys are left to DuckDB', async () => {
    const sql = (from: string) => `SELECT (x) AS k, count(*) FROM ${from} GROUP BY x ORDER BY ALL`;
    expect(await pushedGrouped(sql(scan))).toBe(false);
    expect(await outcome(sql(scan))).toBe(await outcome(sql(table)));
  });
});

describe('shapes that are not pushed stay correct', () => {
  let scan = '';
  let table = '';
  beforeAll(async () => {
    ({ scan, table } = await load(
      `SELECT (i // 500)::INTEGER AS k, (i // 1000)::INTEGER AS k2, i::BIGINT AS x, (i / 3)::DOUBLE AS f, i::HUGEINT AS h FROM range(5000) t(i)`,
      2,
      500,
    ));
  });
  const SHAPES = [
    'SELECT k, sum(DISTINCT x) FROM SRC GROUP BY k',
    'SELECT k, sum(x) FILTER (WHERE x > 10) FROM SRC GROUP BY k',
    'SELECT k + 1, sum(x) FROM SRC GROUP BY k + 1',
    'SELECT k, k2, sum(x) FROM SRC GROUP BY ROLLUP (k, k2)',
    'SELECT k, k2, sum(x) FROM SRC GROUP BY CUBE (k, k2)',
    'SELECT k, k2, sum(x) FROM SRC GROUP BY GROUPING SETS ((k), (k2))',
    'SELECT k, min(f), max(f) FROM SRC GROUP BY k',
    'SELECT f, count(*) FROM SRC GROUP BY f',
    'SELECT k, sum(h) FROM SRC GROUP BY k',
    'SELECT k, string_agg(x::VARCHAR ORDER BY x) FROM SRC GROUP BY k',
    'SELECT k, sum(x) FROM SRC WHERE x * x > 3 GROUP BY k', // x * x may overflow: the filter stays DuckDB's
  ];
  it.each(SHAPES)('%s', async (shape) => {
    const sql = (from: string) => `${shape.replace('SRC', from)} ORDER BY ALL`;
    expect(await pushedGrouped(sql(scan))).toBe(false);
    expect(await outcome(sql(scan))).toBe(await outcome(sql(table)));
  });
  it('vortex_pushdown_grouped = false turns it off', async () => {
    const sql = `SELECT k, count(*), sum(x) FROM ${scan} GROUP BY k ORDER BY k`;
    expect(await pushedGrouped(sql)).toBe(true);
    await conn.run('SET vortex_pushdown_grouped = false');
    expect(await pushedGrouped(sql)).toBe(false);
    expect(await outcome(sql)).toBe(await outcome(sql.replace(scan, table)));
    await conn.run('RESET vortex_pushdown_grouped');
  });
  it('a group whose values are all NULL gives NULL sums and 0 counts', async () => {
    const { scan: s2, table: t2 } = await load(`SELECT (i // 1000)::INTEGER AS k, CASE WHEN i < 1000 THEN NULL ELSE i END::BIGINT AS x FROM range(3000) t(i)`, 1, 1000);
    const sql = (from: string) => `SELECT k, count(x), sum(x), avg(x), min(x), max(x), count(*) FROM ${from} GROUP BY k ORDER BY k`;
    expect(await pushedGrouped(sql(s2))).toBe(true);
    expect(await outcome(sql(s2))).toBe(await outcome(sql(t2)));
  });
});

it('setPushdown switches grouped pushdown from TypeScript', async () => {
  const { setPushdown } = await import('../src/index');
  await setPushdown(conn, { grouped: false });
  expect(String((await conn.runAndReadAll("SELECT current_setting('vortex_pushdown_grouped')")).getRowsJS()[0][0])).toBe('false');
  await setPushdown(conn, { grouped: true });
  expect(String((await conn.runAndReadAll("SELECT current_setting('vortex_pushdown_grouped')")).getRowsJS()[0][0])).toBe('true');
});

describe('hive partition keys', () => {
  it('group by a partition column (and a column) from zone statistics, equal to a native table', async () => {
    const root = join(dir, 'hive');
    await conn.run(`CREATE TABLE hive_src AS SELECT ['eu','us','apac',NULL][1 + (i % 4)] AS region, (i // 1000)::BIGINT AS day,
                      (i % 5)::INTEGER AS k, CASE WHEN i % 9 = 0 THEN NULL ELSE i END::BIGINT AS x FROM range(12000) t(i)`);
    await conn.run(`COPY hive_src TO ${sqlString(root)} (FORMAT vortex, PARTITION_BY (region, day), ROW_GROUP_SIZE 300)`);
    const scan = `vortex_scan(${sqlString(join(root, '**', '*.vtx'))})`;
    for (const keys of ['region', 'day', 'region, day', 'day, region']) {
      const sql = (from: string) => `SELECT ${keys}, count(*), count(x), sum(x), min(x), max(x), avg(x) FROM ${from} GROUP BY ${keys} ORDER BY ALL`;
      expect(await pushedGrouped(sql(scan)), sql(scan)).toBe(true);
      expect(await outcome(sql(scan)), sql(scan)).toBe(await outcome(sql('hive_src')));
    }
    // A key that is not constant in the zones leaves the query to DuckDB, still correct.
    const mixed = (from: string) => `SELECT region, k, count(*) FROM ${from} GROUP BY ALL ORDER BY ALL`;
    expect(await pushedGrouped(mixed(scan))).toBe(false);
    expect(await outcome(mixed(scan))).toBe(await outcome(mixed('hive_src')));
  });
});

describe('grouped pushdown under WHERE', () => {
  it('classifies zones per filter: skipped, from statistics, or decoded and filtered', async () => {
    const { scan, table } = await load(
      `SELECT (i // 10000)::INTEGER AS day, ['a','b',NULL][1 + (i // 30000) % 3] AS s, CASE WHEN i % 11 = 0 THEN NULL ELSE i END::BIGINT AS x,
              (i % 100)::INTEGER AS small, i::BIGINT AS y FROM range(100000) t(i)`,
      2,
      1000,
    );
    const cases: Array<[string, boolean]> = [
      ['WHERE day >= 5 AND day < 8', true], // whole zones: from statistics, others skipped
      ['WHERE day BETWEEN 3 AND 4', true],
      ['WHERE y > 60500', true], // one straddling zone, decoded and filtered; the rest skipped
      ['WHERE x > 60500', true], // x has NULLs in every zone: all straddle, decoded with their constant keys
      ['WHERE day = 7 AND x % 2 = 0', true], // an expression DuckDB keeps above the scan, taken by it
      ['WHERE day = 7 AND x * x > 0', false], // one that may raise an error (overflow): DuckDB's
      ['WHERE small < 10', true], // every zone straddles, its keys constant: cheap to group
      ['WHERE x IS NULL', true], // every zone holds NULLs and values: all straddle
      ['WHERE y IS NOT NULL AND day IN (1, 2, 3)', true],
      ["WHERE s = 'b'", true],
      // In a straddling zone, a filter that holds on every row of it is not evaluated: the other decides.
      ['WHERE y >= 0 AND small < 10', true],
      ['WHERE y BETWEEN 15500 AND 72300 AND x > 20', true],
    ];
    for (const [where, pushed] of cases) {
      for (const keys of ['day', 'day, s']) {
        const sql = (from: string) => `SELECT ${keys}, count(*), count(x), sum(x), min(x), max(x), avg(x) FROM ${from} ${where} GROUP BY ${keys} ORDER BY ALL`;
        expect(await pushedGrouped(sql(scan)), sql(scan)).toBe(pushed);
        const native = await outcome(sql(table));
        expect(await outcome(sql(scan)), sql(scan)).toBe(native);
        await conn.run('SET vortex_pushdown = false');
        expect(await outcome(sql(scan)), `${sql(scan)} (not pushed)`).toBe(native);
        await conn.run('SET vortex_pushdown = true');
      }
    }
  });

  it('partition filters prune files before grouping', async () => {
    const root = join(dir, 'hive-where');
    await conn.run(`CREATE TABLE hw AS SELECT (i % 4)::BIGINT AS part, (i // 20000)::INTEGER AS day, i::BIGINT AS x FROM range(80000) t(i)`);
    await conn.run(`COPY hw TO ${sqlString(root)} (FORMAT vortex, PARTITION_BY (part), ROW_GROUP_SIZE 500)`);
    const scan = `vortex_scan(${sqlString(join(root, '**', '*.vtx'))})`;
    const cases: Array<[string, boolean]> = [
      ['WHERE part >= 2', true],
      ['WHERE part = 1 AND day < 2', true],
      ['WHERE part >= 2 AND x > 20000', true],
      // DuckDB passes a non-contiguous IN list only as an optional filter: the scan takes it.
      ['WHERE part IN (0, 3)', true],
    ];
    for (const [where, pushed] of cases) {
      const sql = (from: string) => `SELECT part, day, count(*), sum(x) FROM ${from} ${where} GROUP BY part, day ORDER BY ALL`;
      expect(await pushedGrouped(sql(scan)), sql(scan)).toBe(pushed);
      expect(await outcome(sql(scan)), sql(scan)).toBe(await outcome(sql('hw')));
    }
  });
});
