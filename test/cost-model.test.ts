import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, dateTruncKeysPushed, explain, openDb, sqlString, tempDir } from './helpers';

// Pushdown that never loses (issue 54): a strategy estimated to cost more than DuckDB's plain scan
// plus its own operator is declined, and EXPLAIN says why; vortex_pushdown = false turns every
// cleverness off; EXPLAIN names what was declined; EXPLAIN ANALYZE names the function that ran.

const dir = tempDir('vtx-cost-');
let conn: DuckDBConnection;
let file: string;

/** EXPLAIN's text with the box drawing folded away. */
async function plan(sql: string): Promise<string> {
  return (await explain(conn, sql)).replace(/[\s│┌┐└┘├┤┬┴─]+/g, ' ');
}

beforeAll(async () => {
  ({ conn } = await openDb());
  // `hi`: every zone holds thousands of values (no zone keeps a list); `lo`: a few per zone (each
  // zone keeps its list); `srt`: sorted, a few per zone; `z`: one value per zone; `d`: doubles.
  await conn.run(`CREATE TABLE t AS SELECT i,
      'user-' || (hash(i) % 40000)::VARCHAR AS hi,
      (hash(i * 3) % 5)::INTEGER AS lo,
      (i // 2000)::INTEGER AS srt,
      (i // 20000)::INTEGER AS z,
      (hash(i * 7) % 1000)::DOUBLE / 8 AS d,
      'https://example.com/' || (hash(i * 5) % 300)::VARCHAR AS url
    FROM range(120000) r(i)`);
  file = join(dir, 't.vtx');
  await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 20000)`);
});

describe('the cost decision', () => {
  it('leaves count(DISTINCT) over zones that keep no list of their values to DuckDB, and says why', async () => {
    const sql = `SELECT count(DISTINCT hi) FROM ${sqlString(file)}`;
    const p = await plan(sql);
    expect(p).not.toContain('Pushed Aggregates');
    expect(p).toMatch(/Not Pushed: count\(DISTINCT hi\): cost: 120000 of its 120000 values are in zones that keep no list/);
    expect(await answerText(conn, sql)).toBe(await answerText(conn, 'SELECT count(DISTINCT hi) FROM t'));
    // Grouped too; and by a key that varies within the zones, even over values the zones list.
    expect(await plan(`SELECT lo, count(DISTINCT srt) FROM ${sqlString(file)} GROUP BY lo`)).toMatch(/Not Pushed: count\(DISTINCT srt\): cost: 120000 of its 120000 values are in zones that keep no list of their distinct values or whose group keys vary/);
    const grouped = `SELECT lo, count(DISTINCT hi) FROM ${sqlString(file)} GROUP BY lo ORDER BY lo`;
    expect(await plan(grouped)).toMatch(/Not Pushed: count\(DISTINCT hi\): cost:/);
    expect(await answerText(conn, grouped)).toBe(await answerText(conn, 'SELECT lo, count(DISTINCT hi) FROM t GROUP BY lo ORDER BY lo'));
  });

  it('pushes count(DISTINCT) where the zones keep their values, ungrouped and grouped by a key constant in each zone', async () => {
    for (const sql of [
      (f: string) => `SELECT count(DISTINCT lo), count(DISTINCT srt) FROM ${f}`,
      (f: string) => `SELECT count(DISTINCT srt) FROM ${f} WHERE srt BETWEEN 3 AND 40`,
      (f: string) => `SELECT z, count(DISTINCT lo), count(DISTINCT srt) FROM ${f} GROUP BY z ORDER BY z`,
    ]) {
      expect(await plan(sql(sqlString(file)))).toMatch(/Pushed Aggregates: .*count\(DISTINCT/);
      expect(await answerText(conn, sql(sqlString(file)))).toBe(await answerText(conn, sql('t')));
    }
  });

  it('leaves an ungrouped aggregate of other columns to DuckDB where the filters straddle every zone and few rows pass', async () => {
    // `k = …` straddles every zone's [min, max] of `k` (random integers) and keeps a row or two.
    await conn.run(`CREATE TABLE few AS SELECT i, (hash(i) % 10000000)::BIGINT AS k, (hash(i * 3) % 5)::INTEGER AS lo,
        'https://example.com/' || (hash(i * 5) % 300)::VARCHAR AS url FROM range(120000) r(i)`);
    const [[k]] = (await conn.runAndReadAll('SELECT k FROM few WHERE i = 777')).getRowsJS();
    const f = sqlString(join(dir, 'few.vtx'));
    await conn.run(`COPY few TO ${f} (FORMAT vortex, ROW_GROUP_SIZE 20000)`);
    const narrow = (from: string) => `SELECT count(url), max(url), sum(lo) FROM ${from} WHERE k = ${String(k)} AND lo <= 3`;
    expect(await plan(narrow(f))).toMatch(/Not Pushed: cost: the filters straddle the zones of 120000 rows and an estimated 0 of them pass/);
    expect(await answerText(conn, narrow(f))).toBe(await answerText(conn, narrow('few')));
    // Still pushed: where most rows pass, where only count(*) or the filtered columns are
    // aggregated, and with the cost decisions off.
    for (const sql of [
      `SELECT count(url), max(url), sum(lo) FROM ${f} WHERE lo <= 3`,
      `SELECT count(*) FROM ${f} WHERE k = ${String(k)}`,
      `SELECT count(k), max(lo) FROM ${f} WHERE k = ${String(k)} AND lo <= 3`,
    ]) {
      expect(await plan(sql)).toContain('Pushed Aggregates');
    }
    await conn.run('SET vortex_pushdown_cost_based = false');
    try {
      expect(await plan(narrow(f))).toContain('Pushed Aggregates');
      expect(await answerText(conn, narrow(f))).toBe(await answerText(conn, narrow('few')));
    } finally {
      await conn.run('RESET vortex_pushdown_cost_based');
    }
  });

  it('leaves a GROUP BY with too few rows a group over the whole query to DuckDB, though each zone holds few groups', async () => {
    // 400,000 rows clustered by key: 100 groups a zone of 20,000 (cheap for the zone), but 2,000
    // groups of 200 rows in all, each made, merged and finished by the reader's table of groups.
    await conn.run(`CREATE TABLE clustered AS SELECT 'key-' || lpad((i * 2000 // 400000)::VARCHAR, 5, '0') AS s,
        (i * 2000 // 400000)::BIGINT AS n, (i * 300 // 400000)::BIGINT AS few, (hash(i) % 1000)::BIGINT AS v,
        TIMESTAMP '2024-01-01' + to_milliseconds(i * 200) AS ts
      FROM range(400000) r(i)`);
    const f = sqlString(join(dir, 'clustered.vtx'));
    await conn.run(`COPY clustered TO ${f} (FORMAT vortex, ROW_GROUP_SIZE 20000)`);
    const query = (key: string, from: string) => `SELECT ${key}, count(*), sum(v), max(v) FROM ${from} GROUP BY 1 ORDER BY 1`;
    const p = await plan(query('s', f));
    expect(p).toMatch(/Not Pushed: GROUP BY: cost: about \d+ groups in 400000 rows, too few rows a group/);
    const estimate = Number(/about (\d+) groups/.exec(p)?.[1]);
    expect(estimate).toBeGreaterThan(1600);
    expect(estimate).toBeLessThan(2400);
    expect(p).not.toContain('VORTEX_SCAN_GROUPED');
    // An integer key the zones are sorted by goes to the sorted path, which makes no table;
    // 300 groups are few enough for the table whatever their rows.
    expect(await plan(query('n', f))).toContain('Grouped As');
    expect(await plan(query('few', f))).toContain('VORTEX_SCAN_GROUPED');
    // A bucket key costs DuckDB its function on every row: 300 rows a minute stay pushed (where this
    // DuckDB lets date_trunc keys be pushed at all: test/helpers.ts, dateTruncKeysPushed).
    if (await dateTruncKeysPushed(conn)) expect(await plan(query(`date_trunc('minute', ts)`, f))).toContain('VORTEX_SCAN_GROUPED');
    for (const key of ['s', 'n', 'few', `date_trunc('minute', ts)`]) {
      expect(await answerText(conn, query(key, f))).toBe(await answerText(conn, query(key, 'clustered')));
    }
    await conn.run('SET vortex_pushdown_cost_based = false');
    try {
      expect(await plan(query('s', f))).toContain('VORTEX_SCAN_GROUPED');
      expect(await answerText(conn, query('s', f))).toBe(await answerText(conn, query('s', 'clustered')));
    } finally {
      await conn.run('RESET vortex_pushdown_cost_based');
    }
  });

  it('applies the groups-in-all rule only where every key has sketches to estimate them', async () => {
    // 128 values at random in every zone of 20,000 rows: the zones' bounds summed (2,560) would
    // count each value once per zone and decline a GROUP BY that has 128 groups.
    await conn.run(`CREATE TABLE spread AS SELECT (hash(i) % 128)::INTEGER AS k, (hash(i * 3) % 1000)::BIGINT AS v FROM range(400000) r(i)`);
    for (const sketches of ['true', 'false']) {
      const f = sqlString(join(dir, `spread-${sketches}.vtx`));
      await conn.run(`COPY spread TO ${f} (FORMAT vortex, ROW_GROUP_SIZE 20000, SKETCHES ${sketches})`);
      const sql = (from: string) => `SELECT k, count(*), sum(v) FROM ${from} GROUP BY k ORDER BY k`;
      expect(await plan(sql(f)), sketches).toContain('VORTEX_SCAN_GROUPED');
      expect(await answerText(conn, sql(f)), sketches).toBe(await answerText(conn, sql('spread')));
    }
  });

  it('estimates the groups of a partition key behind the filename column', async () => {
    // The groups of a partition key are counted from the files' values, found after `filename`
    // (a lookup by field count once read past them).
    await conn.run(`CREATE TABLE parts AS SELECT i, (i % 5)::INTEGER AS p, (hash(i) % 1000)::BIGINT AS v FROM range(50000) r(i)`);
    const root = join(dir, 'parts');
    await conn.run(`COPY parts TO ${sqlString(root)} (FORMAT vortex, PARTITION_BY (p))`);
    const glob = sqlString(join(root, '*', '*.vtx'));
    for (const options of ['', ', filename := true']) {
      const sql = `SELECT p, count(*), sum(v) FROM vortex_scan(${glob}, hive_partitioning := true${options}) GROUP BY p ORDER BY p`;
      expect(await plan(sql), options).toContain('VORTEX_SCAN_GROUPED');
      expect(await answerText(conn, sql), options).toBe(await answerText(conn, 'SELECT p::BIGINT AS p, count(*), sum(v) FROM parts GROUP BY p ORDER BY p'));
    }
  });

  it('vortex_pushdown_cost_based = false pushes wherever the rules allow, with the same answers', async () => {
    const sql = (f: string) => `SELECT count(DISTINCT hi), count(DISTINCT url) FROM ${f} WHERE i % 3 = 0`;
    await conn.run('SET vortex_pushdown_cost_based = false');
    try {
      expect(await plan(sql(sqlString(file)))).toContain('Pushed Aggregates');
      expect(await answerText(conn, sql(sqlString(file)))).toBe(await answerText(conn, sql('t')));
    } finally {
      await conn.run('RESET vortex_pushdown_cost_based');
    }
    expect(await plan(sql(sqlString(file)))).not.toContain('Pushed Aggregates');
    expect(await answerText(conn, sql(sqlString(file)))).toBe(await answerText(conn, sql('t')));
  });
});

describe('the master switch', () => {
  it('vortex_pushdown = false turns off aggregates, groups, expression filters and bucket keys alike', async () => {
    const cases = [
      `SELECT count(*), sum(lo) FROM ${sqlString(file)} WHERE url LIKE '%/12%'`,
      `SELECT lo, count(*) FROM ${sqlString(file)} GROUP BY lo ORDER BY lo`,
      `SELECT i % 7 AS k, count(*) FROM ${sqlString(file)} WHERE url LIKE '%/1%' GROUP BY k ORDER BY k`,
    ];
    const before = await Promise.all(cases.map((sql) => answerText(conn, sql)));
    expect(await plan(cases[0])).toMatch(/Pushed Aggregates.*Filters: contains\(url/);
    await conn.run('SET vortex_pushdown = false');
    try {
      for (const [k, sql] of cases.entries()) {
        const p = await plan(sql);
        expect(p).not.toMatch(/Pushed Aggregates|Pushed Groups|VORTEX_SCAN_AGGREGATE|VORTEX_SCAN_GROUPED/);
        // The LIKE stays DuckDB's: a FILTER above the scan, not taken into it.
        if (sql.includes('LIKE')) expect(p).toMatch(/FILTER .*contains\(url/);
        expect(await answerText(conn, sql)).toBe(before[k]);
      }
      // Each per-feature setting still reads its own value, and none of them turns pushdown back on.
      await conn.run('SET vortex_pushdown_expressions = true');
      expect(await plan(cases[0])).toMatch(/FILTER .*contains\(url/);
    } finally {
      await conn.run('RESET vortex_pushdown');
      await conn.run('RESET vortex_pushdown_expressions');
    }
  });
});

describe('EXPLAIN', () => {
  it('names each aggregate that kept a query from being pushed, and why', async () => {
    const f = sqlString(file);
    expect(await plan(`SELECT sum(d), min(d) FROM ${f}`)).toMatch(/Not Pushed: min\(d\): float min\/max is never pushed/);
    expect(await plan(`SELECT sum(lo) FILTER (WHERE lo > 1) FROM ${f}`)).toMatch(/Not Pushed: sum\(…\) FILTER \(WHERE …\): an aggregate's own filter is left to DuckDB/);
    expect(await plan(`SELECT string_agg(url, ',') FROM ${f}`)).toMatch(/Not Pushed: string_agg\(…\): not an aggregate the reader answers/);
    await conn.run('SET vortex_pushdown_sum = false');
    try {
      expect(await plan(`SELECT sum(lo) FROM ${f}`)).toMatch(/Not Pushed: sum: vortex_pushdown_sum is false/);
    } finally {
      await conn.run('RESET vortex_pushdown_sum');
    }
  });

  it('EXPLAIN ANALYZE names the function that ran, as it does for read_parquet', async () => {
    const text = async (sql: string) => (await conn.runAndReadAll(`EXPLAIN ANALYZE ${sql}`)).getRows().map((r) => String(r[1])).join('\n').replace(/[\s│]+/g, ' ');
    expect(await text(`SELECT count(*) FROM ${sqlString(file)} WHERE lo > 1`)).toContain('Function: VORTEX_SCAN_AGGREGATE');
    expect(await text(`SELECT lo, count(*) FROM ${sqlString(file)} GROUP BY lo`)).toContain('Function: VORTEX_SCAN_GROUPED');
    expect(await text(`SELECT min(d) FROM ${sqlString(file)}`)).toContain('Function: VORTEX_SCAN');
  });
});
