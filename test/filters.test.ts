import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { VERIFY, explain, isPushed, openDb, rows, show, sqlString, tempDir } from './helpers';

// Table filters inside vortex_scan, and aggregates answered under them.
describe('filters pushed into vortex_scan', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let vtx: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    // 10 zones of 1,000 rows: x sorted, u unsorted, s sorted strings, iv an INTERVAL (no order).
    await conn.run(`CREATE TABLE t AS SELECT i AS x, hash(i) % 1000 AS u, lpad((i // 100)::VARCHAR, 3, '0') AS s,
      CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 50)::DOUBLE END AS d, to_days((i % 40)::INTEGER) AS iv
      FROM range(10000) r(i)`);
    const file = `${dir}/t.vtx`;
    // On 2 threads one thread feeds the COPY: zones of exactly ROW_GROUP_SIZE rows, whatever the
    // machine (DuckDB's batch copy, on more threads, evens out its batches instead). Not under the
    // verifier, whose serialized copy of the plan is planned afresh, as a batch copy.
    await conn.run('SET threads = 2');
    if (VERIFY) await conn.run('PRAGMA disable_verification');
    await conn.run(`COPY (SELECT * FROM t ORDER BY x) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    if (VERIFY) await conn.run('PRAGMA enable_verification');
    await conn.run('RESET threads');
    vtx = `vortex_scan(${sqlString(file)})`;
  });

  async function same(sqlOf: (from: string) => string, pushed: boolean) {
    const q = sqlOf(vtx);
    expect(await isPushed(conn, q), q).toBe(pushed);
    const a = (await rows(conn, q)).map((r) => r.map(show).join('|')).sort();
    const b = (await rows(conn, sqlOf('t'))).map((r) => r.map(show).join('|')).sort();
    expect(a).toEqual(b);
  }

  async function analyze(sql: string): Promise<string> {
    // Box-drawing borders and line breaks out, so that "Key: value" reads on one line.
    return (await rows(conn, `EXPLAIN ANALYZE ${sql}`)).map((r) => String(r[1])).join('\n').replace(/[│\s]+/g, ' ');
  }

  it('pushes aggregates under conjunctions of pushed filters and shows both in EXPLAIN', async () => {
    const q = `SELECT count(*), sum(x), min(s) FROM ${vtx} WHERE x >= 2500 AND s < '080' AND d > 3`;
    const plan = await explain(conn, q);
    expect(plan).toContain('Pushed Aggregates');
    expect(plan).toMatch(/Filters:/);
    expect(plan).toMatch(/x>=2500/);
    await same((f) => `SELECT count(*), sum(x), min(s) FROM ${f} WHERE x >= 2500 AND s < '080' AND d > 3`, true);
    await same((f) => `SELECT count(*), avg(u), max(s) FROM ${f} WHERE u BETWEEN 100 AND 300`, true);
    await same((f) => `SELECT count(d), sum(d) FROM ${f} WHERE d = 7 AND x < 5000`, true);
  });

  it('reports zones answered from statistics, skipped and decoded', async () => {
    // Zones of 1,000 rows: zone 2 straddles, zones 3-6 match entirely, the other four not at all.
    const plan = await analyze(`SELECT count(*), sum(x) FROM ${vtx} WHERE x >= 2500 AND x < 7000`);
    expect(plan).toMatch(/Zones From Statistics: 4/);
    expect(plan).toMatch(/Zones Skipped: 5/);
    expect(plan).toMatch(/Zones Decoded: 1/);
    const scan = await analyze(`SELECT x, s FROM ${vtx} WHERE x >= 2500 AND x < 7000`);
    expect(scan).toMatch(/Zones Scanned: 5\/10/);
    expect(scan).toMatch(/Zones Filtered: 1/);
  });

  it('pushes under filters the scan takes (table filters and expressions), and stays correct', async () => {
    // DuckDB itself rewrites x + 1 > 5000 into x > 4999, a table filter: pushed, and right.
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE x + 1 > 5000`, true);
    // Expressions DuckDB keeps above the scan are taken into it (vortex_pushdown_expressions)
    // where they cannot raise an error: modulo by a constant, lower(), ORs across columns.
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE x % 7 = 3`, true);
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE lower(s) = '042'`, true);
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE x < 100 OR u < 10`, true);
    // x - 5000 may overflow (an error): it stays DuckDB's, and so does the aggregate.
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE abs(x - 5000) < 100`, false);
    // DuckDB keeps IS [NOT] NULL above the scan as a FILTER; the pushed aggregate applies it itself.
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE d IS NULL AND x > 100`, true);
    await same((f) => `SELECT count(*), sum(d), min(s) FROM ${f} WHERE d IS NOT NULL`, true);
    // IN lists and ORs on one column, which DuckDB hands scans only as optional filters, are taken.
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE u IN (1, 5, 900)`, true);
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE x < 100 OR x > 9900`, true);
    // DuckDB compares intervals through normalized_interval(iv), an expression the scan takes.
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE iv = INTERVAL 3 DAY`, true);
    await same((f) => `SELECT x, iv FROM ${f} WHERE iv > INTERVAL 30 DAY AND x < 3000`, false);
    await conn.run('SET vortex_pushdown_expressions = false');
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE x % 7 = 3`, false);
    await same((f) => `SELECT count(*), sum(x) FROM ${f} WHERE u IN (1, 5, 900)`, false);
    await conn.run('RESET vortex_pushdown_expressions');
  });

  it('filters rows exactly in plain scans', async () => {
    await same((f) => `SELECT * FROM ${f} WHERE x >= 2500 AND x < 2600`, false);
    await same((f) => `SELECT x, d FROM ${f} WHERE d IS NULL AND u > 500`, false);
    await same((f) => `SELECT s FROM ${f} WHERE u IN (1, 5, 900)`, false);
    await same((f) => `SELECT x FROM ${f} WHERE x < 100 OR x > 9900`, false);
    await same((f) => `SELECT count(*) FROM (SELECT x FROM ${f} WHERE d > 45 AND x % 2 = 0)`, true);
  });

  it('a conjunction of bounds on one integer column selects DuckDB rows, up to the ends of each type', async () => {
    // Unsorted values with NULLs (every zone is decoded and checked row by row), the type's
    // smallest and largest values among them; strict bounds at those ends leave nothing.
    const types: [string, string, string][] = [
      ['TINYINT', '-128', '127'], ['SMALLINT', '-32768', '32767'], ['INTEGER', '-2147483648', '2147483647'],
      ['BIGINT', '-9223372036854775808', '9223372036854775807'], ['UTINYINT', '0', '255'], ['USMALLINT', '0', '65535'],
      ['UINTEGER', '0', '4294967295'], ['UBIGINT', '0', '18446744073709551615'],
    ];
    const cols = types.map(([type, lo, hi], k) => `CASE WHEN hash(i + ${k}) % 13 = 0 THEN NULL WHEN hash(i + ${k}) % 13 = 1 THEN (${lo})::${type}
      WHEN hash(i + ${k}) % 13 = 2 THEN (${hi})::${type} ELSE (${lo})::${type} + (hash(i * 7 + ${k}) % 100)::${type} END AS c${k}`);
    await conn.run(`CREATE OR REPLACE TABLE ints AS SELECT i AS id, ${cols.join(', ')} FROM range(5000) r(i)`);
    const file = `${dir}/ints.vtx`;
    await conn.run(`COPY ints TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 700)`);
    const from = `vortex_scan(${sqlString(file)})`;
    for (const [k, [type, lo, hi]] of types.entries()) {
      const c = `c${k}`;
      const v = (x: string) => `(${x})::${type}`;
      const mid = `${v(lo)} + 50::${type}`;
      for (const where of [
        `${c} >= ${v(lo)} AND ${c} <= ${v(hi)}`, `${c} > ${v(lo)} AND ${c} < ${v(hi)}`, `${c} BETWEEN ${mid} AND ${v(hi)}`,
        `${c} > ${v(hi)} AND ${c} >= ${v(lo)}`, `${c} < ${v(lo)} AND ${c} <= ${mid}`, `${c} > ${mid} AND ${c} < ${mid} + 2::${type}`,
        `${c} = ${mid} AND ${c} >= ${v(lo)}`, `${c} >= ${mid} AND ${c} <= ${v(lo)} + 80::${type}`,
      ]) {
        for (const select of [`id`, `id, ${c}`]) {
          const a = (await rows(conn, `SELECT ${select} FROM ${from} WHERE ${where} ORDER BY id`)).map((r) => r.map(show).join('|'));
          const b = (await rows(conn, `SELECT ${select} FROM ints WHERE ${where} ORDER BY id`)).map((r) => r.map(show).join('|'));
          expect(a, `${type}: ${select} WHERE ${where}`).toEqual(b);
        }
      }
    }
  });

  it('Top-N uses the dynamic filter to skip zones and returns the right rows', async () => {
    await same((f) => `SELECT * FROM ${f} ORDER BY x DESC LIMIT 10`, false);
    await same((f) => `SELECT x, u FROM ${f} ORDER BY u DESC, x LIMIT 7`, false);
    await same((f) => `SELECT x FROM ${f} ORDER BY x LIMIT 3`, false);
    const plan = await analyze(`SELECT * FROM ${vtx} ORDER BY x DESC LIMIT 10`);
    const m = /Zones Scanned: (\d+)\/10/.exec(plan);
    expect(m, plan).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(10);
  });

  it('Top-N over NULLs, strings, ties and several files stays right', async () => {
    const files: string[] = [];
    for (let f = 0; f < 3; f++) {
      const file = sqlString(`${dir}/top${f}.vtx`);
      await conn.run(`COPY (SELECT x, CASE WHEN x % 3 = 0 THEN NULL ELSE u END AS u, s || repeat('z', (x % 90)::INTEGER) AS s
        FROM t WHERE x % 3 = ${f} ORDER BY u) TO ${file} (FORMAT vortex, ROW_GROUP_SIZE 300)`);
      files.push(file);
    }
    const many = `vortex_scan([${files.join(', ')}])`;
    const src = `(SELECT x, CASE WHEN x % 3 = 0 THEN NULL ELSE u END AS u, s || repeat('z', (x % 90)::INTEGER) AS s FROM t)`;
    for (const q of [
      (f: string) => `SELECT x, u FROM ${f} ORDER BY u DESC NULLS LAST, x LIMIT 12`,
      (f: string) => `SELECT x, u FROM ${f} ORDER BY u ASC NULLS LAST, x DESC LIMIT 5`,
      (f: string) => `SELECT x, u FROM ${f} ORDER BY u NULLS FIRST, x LIMIT 5`,
      (f: string) => `SELECT s, x FROM ${f} ORDER BY s DESC, x LIMIT 9`,
      (f: string) => `SELECT s FROM ${f} ORDER BY s LIMIT 4`,
      (f: string) => `SELECT x FROM ${f} WHERE u > 500 ORDER BY x DESC LIMIT 6`,
    ]) {
      const a = (await rows(conn, q(many))).map((r) => r.map(show).join('|'));
      const b = (await rows(conn, q(src))).map((r) => r.map(show).join('|'));
      expect(a).toEqual(b);
    }
  });

  it('join filters reach the scan and keep answers right', async () => {
    await same((f) => `SELECT a.x, a.s FROM ${f} a JOIN (SELECT 4242 AS k UNION ALL SELECT 17) b ON a.x = b.k`, false);
    await same((f) => `SELECT a.x, b.x FROM ${f} a JOIN (SELECT x FROM range(100, 9000, 37) r(x)) b ON a.u = b.x`, false);
    await same((f) => `SELECT count(*) FROM ${f} a JOIN (SELECT '042' AS s UNION ALL SELECT '077') b ON a.s = b.s`, false);
  });

  it('prepared statements re-bind their parameters per execution', async () => {
    const stmt = await conn.prepare(`SELECT count(*), sum(x) FROM ${vtx} WHERE x >= $1 AND s = $2`);
    for (const [v, s] of [[0, '005'], [550, '005'], [9999, '099'], [100000, '000']] as const) {
      stmt.bindBigInt(1, BigInt(v));
      stmt.bindVarchar(2, s);
      const got = (await stmt.runAndReadAll()).getRowsJS()[0].map(show);
      const want = (await rows(conn, `SELECT count(*), sum(x) FROM t WHERE x >= ${v} AND s = '${s}'`))[0].map(show);
      expect(got).toEqual(want);
    }
  });
});

describe('a filter that selects one run of rows of a zone (a range on a sorted column)', () => {
  // Straddling zones whose matches form one contiguous run are aggregated in place over that
  // run; other masks are compacted. Both must equal DuckDB on NULLs, dictionary and plain
  // strings, NaN and ±inf, 128-bit and wide-decimal sums.
  it('aggregates the run exactly, wherever it lies in the zone, and non-contiguous masks too', async () => {
    const { conn } = await openDb();
    const dir = tempDir();
    await conn.run(`CREATE TABLE runs AS SELECT i AS x, hash(i) % 100 AS u,
      CASE WHEN i % 7 = 0 THEN NULL ELSE (hash(i) % 100000)::BIGINT - 50000 END AS v,
      CASE WHEN i % 5 = 0 THEN NULL ELSE ['red', 'green', 'blue'][1 + (i % 3)::INTEGER] END AS c,
      CASE WHEN i % 11 = 0 THEN NULL ELSE md5(i::VARCHAR) END AS m,
      CASE WHEN i % 997 = 0 THEN 'NaN'::DOUBLE WHEN i % 499 = 0 THEN 'inf'::DOUBLE WHEN i % 13 = 0 THEN NULL ELSE (i % 50)::DOUBLE END AS d,
      CASE WHEN i % 9 = 0 THEN NULL ELSE i::HUGEINT * 1000000000000000000000000000000 - 7 END AS h,
      CASE WHEN i % 4 = 0 THEN NULL ELSE (i * 12345678901.25)::DECIMAL(30, 2) END AS dec
      FROM range(5000) r(i)`);
    // Zones of 1,000 rows, and of 1,001 (runs and masks whose ends are not multiples of 8 or 64).
    await conn.run(`COPY runs TO ${sqlString(`${dir}/runs.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    await conn.run(`COPY runs TO ${sqlString(`${dir}/odd.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 1001)`);
    const aggs = `count(*), count(v), sum(v), min(v), max(v), avg(v), count(c), min(c), max(c), min(m), max(m),
      count(d), sum(d), sum(h), min(h), sum(dec), avg(dec)`;
    const wheres = [
      'x BETWEEN 1200 AND 1700', // the middle of one zone
      'x >= 2000 AND x < 2500', // from a zone's first row
      'x > 3500 AND x <= 3999', // to a zone's last row
      'x BETWEEN 1500 AND 3300', // two straddling edges
      'x >= 4990', // a few rows at the end of the file
      'x BETWEEN 1200 AND 1700 AND u < 50', // not one run
      'x BETWEEN 300 AND 700 AND v IS NOT NULL', // not one run: NULLs of v drop out
      'x BETWEEN 1001 AND 1001', // one row, the first of a 1,001-row zone
      'x BETWEEN 2999 AND 3003', // a few rows across a zone edge
    ];
    for (const [file, w] of ['runs', 'odd'].flatMap((f) => wheres.map((w) => [f, w] as const))) {
      const q = `SELECT ${aggs} FROM vortex_scan(${sqlString(`${dir}/${file}.vtx`)}) WHERE ${w}`;
      expect(await isPushed(conn, q), q).toBe(true);
      const got = (await rows(conn, q)).map((r) => r.map(show));
      await conn.run('SET vortex_pushdown = false');
      const off = (await rows(conn, q)).map((r) => r.map(show));
      await conn.run('SET vortex_pushdown = true');
      const want = (await rows(conn, `SELECT ${aggs} FROM runs WHERE ${w}`)).map((r) => r.map(show));
      expect(got, `${file}: ${w}`).toEqual(want);
      expect(off, `${file}: ${w}`).toEqual(want);
    }
  });

  // A run that ends at the zone's last row decodes the aggregated columns from its first 64-row
  // block on; the rows before it are not decoded. The DECIMAL domain check once looked at them
  // anyway and, where the reused buffer held a wider column's bytes, called a valid file corrupt
  // (38 of these 120 queries failed). Narrow decimals and wide neighbours make that likely.
  it('checks only the decoded rows of a run that ends at the zone end', async () => {
    const { conn } = await openDb();
    const dir = tempDir();
    await conn.run(`CREATE TABLE tail AS SELECT i AS id, (hash(i) % 4000000000000000)::BIGINT AS big,
      (((hash(i * 3) % 1999)::INTEGER - 999) * 0.1)::DECIMAL(4,1) AS small,
      ((hash(i * 5) % 19999)::BIGINT - 9999)::DECIMAL(9,2) AS m FROM range(100000) r(i)`);
    const file = sqlString(`${dir}/tail.vtx`);
    await conn.run(`COPY tail TO ${file} (FORMAT vortex, ROW_GROUP_SIZE 3000)`);
    const aggs = 'count(*), sum(m), min(small), max(big), sum(small)';
    const failed: string[] = [];
    for (let r = 0; r < 40; r++) {
      for (const threads of [1, 2, 4]) {
        await conn.run(`SET threads = ${threads}`);
        const lo = 1000 + ((r * 2311) % 90000), end = Math.ceil((lo + 1) / 3000) * 3000;
        const where = `WHERE id >= ${lo} AND id < ${end}`;
        const want = (await rows(conn, `SELECT ${aggs} FROM tail ${where}`)).map((x) => x.map(show)).join();
        try {
          const got = (await rows(conn, `SELECT ${aggs} FROM vortex_scan(${file}) ${where}`)).map((x) => x.map(show)).join();
          if (got !== want) failed.push(`${where}: ${got} != ${want}`);
        } catch (e) {
          failed.push(`${where}: ${(e as Error).message}`);
        }
      }
    }
    await conn.run('RESET threads');
    expect(failed).toEqual([]);
  });
});

describe('string filters on dictionary-coded zones', () => {
  // A dictionary-coded chunk is filtered by evaluating the predicate once per dictionary entry
  // and looking each row's code up; NULL rows, entries no row uses and every comparison must
  // give what DuckDB gives.
  it('equal DuckDB for every comparison, with NULLs, pushed and in plain scans', async () => {
    const { conn } = await openDb();
    const dir = tempDir();
    await conn.run(`CREATE TABLE ds AS SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE ['eu', 'us', 'ap', 'éé', '', 'eu-west-1'][1 + (hash(i) % 6)::INTEGER] END AS region,
      (i % 100)::BIGINT AS v FROM range(6000) r(i)`);
    await conn.run(`COPY ds TO ${sqlString(`${dir}/ds.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    const scan = `vortex_scan(${sqlString(`${dir}/ds.vtx`)})`;
    const encodings = await rows(conn, `SELECT DISTINCT encoding FROM vortex_metadata(${sqlString(`${dir}/ds.vtx`)}) WHERE column_name = 'region'`);
    expect(encodings.map((r) => String(r[0]))).toEqual(['dictionary']);
    const wheres = ["region = 'eu'", "region <> 'eu'", "region < 'eu'", "region >= 'eu'", "region > 'eu-west-1'", "region = ''",
      "region = 'nowhere'", "region <= 'ap' AND i > 2500", "region = 'éé' AND v < 50", 'region IS NULL AND i < 3000',
      "region BETWEEN 'ap' AND 'eu'", "region > 'a' AND region < 'eu-west-1'"];
    for (const w of wheres) {
      for (const q of [`SELECT count(*), sum(v), min(region), max(region) FROM %s WHERE ${w}`, `SELECT i, region FROM %s WHERE ${w}`]) {
        const got = (await rows(conn, q.replace('%s', scan))).map((r) => r.map(show).join('|')).sort();
        const want = (await rows(conn, q.replace('%s', 'ds'))).map((r) => r.map(show).join('|')).sort();
        expect(got, `${q} / ${w}`).toEqual(want);
      }
    }
  });
});

describe('filters DuckDB evaluates inside the scan (residual)', () => {
  // Regression: when the last vector of the last zone kept no row, the scan returned that
  // vector unfiltered (the chunk's cardinality was left set), e.g. 1,024 rows for `x = 70`
  // where no row matches.
  it('return no row from a vector where none matches, at the end of the scan', async () => {
    const { conn } = await openDb();
    const dir = tempDir();
    await conn.run(`CREATE TABLE r AS SELECT i, (i % 13)::INTEGER * INTERVAL 1 DAY AS iv, md5(i::VARCHAR)::UUID AS id,
      {'a': CASE WHEN i % 7 = 0 THEN NULL ELSE i END} AS s FROM range(3000) r(i)`);
    await conn.run(`COPY r TO ${sqlString(`${dir}/r.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    const scan = `vortex_scan(${sqlString(`${dir}/r.vtx`)})`;
    for (const w of ["iv = INTERVAL 20 DAY", "id = md5('nope')::UUID", 's.a = 70', 's.a = 2999', "iv = INTERVAL 3 DAY AND i > 2990",
      "id = md5('2999')::UUID", "id = md5('5')::UUID"]) {
      expect(await rows(conn, `SELECT count(*), sum(i) FROM ${scan} WHERE ${w}`), w).toEqual(await rows(conn, `SELECT count(*), sum(i) FROM r WHERE ${w}`));
    }
  });
});

describe('partition filters prune whole files', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let glob: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    for (const year of [2023, 2024]) {
      for (const region of ['eu', 'us']) {
        const d = `${dir}/year=${year}/region=${region}`;
        mkdirSync(d, { recursive: true });
        await conn.run(`COPY (SELECT i AS x, i % 3 AS y FROM range(${(year - 2020) * 1000}) r(i)) TO ${sqlString(`${d}/data.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 500)`);
      }
    }
    glob = `vortex_scan(${sqlString(`${dir}/*/*/*.vtx`)})`;
  });

  it('pushes aggregates under partition and column filters', async () => {
    const q = `SELECT count(*), sum(x), max(y) FROM ${glob} WHERE region = 'eu' AND year >= 2024 AND x >= 1000`;
    const plan = await explain(conn, q);
    expect(plan).toContain('Pushed Aggregates');
    expect(plan).toMatch(/Files: 1/);
    expect(await rows(conn, q)).toEqual([[3000n, BigInt((1000 + 3999) * 3000 / 2), 2n]]);
    await conn.run('SET vortex_pushdown = false');
    expect(await rows(conn, q)).toEqual([[3000n, BigInt((1000 + 3999) * 3000 / 2), 2n]]);
    await conn.run('SET vortex_pushdown = true');
    expect(await rows(conn, `SELECT count(*) FROM ${glob} WHERE region = 'xx'`)).toEqual([[0n]]);
    expect(await rows(conn, `SELECT region, count(*) FROM ${glob} WHERE year = 2023 AND x < 10 GROUP BY 1 ORDER BY 1`))
      .toEqual([['eu', 10n], ['us', 10n]]);
  });
});

describe('virtual columns, as read_parquet has them', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let vtxList: string;
  let pqList: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    await conn.run(`CREATE TABLE t AS SELECT i AS x, i % 7 AS g FROM range(5000) r(i)`);
    const v: string[] = [], p: string[] = [];
    for (let f = 0; f < 3; f++) {
      const sel = `SELECT * FROM t WHERE x % 3 = ${f} ORDER BY x`;
      v.push(sqlString(`${dir}/p${f}.vtx`));
      p.push(sqlString(`${dir}/p${f}.parquet`));
      await conn.run(`COPY (${sel}) TO ${v[f]} (FORMAT vortex, ROW_GROUP_SIZE 500)`);
      await conn.run(`COPY (${sel}) TO ${p[f]} (FORMAT parquet, ROW_GROUP_SIZE 500)`);
    }
    vtxList = `vortex_scan([${v.join(', ')}])`;
    pqList = `read_parquet([${p.join(', ')}])`;
  });

  async function sameAsParquet(sqlOf: (from: string) => string) {
    const norm = (r: unknown[][]) => r.map((row) => row.map((c) => show(typeof c === 'string' ? c.replace(/\.(vtx|parquet)$/, '') : c)).join('|')).sort();
    const a = norm(await rows(conn, sqlOf(vtxList)));
    const b = norm(await rows(conn, sqlOf(pqList)));
    expect(a.length).toBeGreaterThan(0);
    expect(a).toEqual(b);
  }

  it('projects filename, file_row_number and file_index', async () => {
    await sameAsParquet((f) => `SELECT filename, file_row_number, file_index, x FROM ${f}`);
    await sameAsParquet((f) => `SELECT file_index, count(*), max(file_row_number) FROM ${f} GROUP BY ALL`);
  });

  it('filters on them', async () => {
    await sameAsParquet((f) => `SELECT x, file_row_number FROM ${f} WHERE file_row_number BETWEEN 490 AND 510 AND g = 3`);
    await sameAsParquet((f) => `SELECT x, file_index FROM ${f} WHERE file_index = 1 AND x < 100`);
    await sameAsParquet((f) => `SELECT count(*), sum(x) FROM ${f} WHERE filename LIKE '%p2%'`);
    await sameAsParquet((f) => `SELECT count(*), sum(x) FROM ${f} WHERE file_index >= 1 AND x > 2500`);
    await sameAsParquet((f) => `SELECT count(*), sum(x) FROM ${f} WHERE file_row_number < 10`);
  });

  // Regression: the scan handed DuckDB vectors sliced by a selection it reused for the next
  // vector, and with several threads DuckDB read some after they were overwritten: 1 to 10 in
  // 100 runs returned rows no filter admits (found on a quiet 2-core machine, 2026-11-30).
  it('stay right when repeated on several threads', async () => {
    const sql = (f: string) => `SELECT x, file_row_number FROM ${f} WHERE file_row_number BETWEEN 490 AND 510 AND g = 3`;
    const norm = (r: unknown[][]) => r.map((row) => row.map(show).join('|')).sort().join(';');
    const want = norm(await rows(conn, sql(pqList)));
    const wrong: string[] = [];
    for (const threads of [2, 4]) {
      await conn.run(`SET threads = ${threads}`);
      for (let i = 0; i < 150; i++) {
        const got = norm(await rows(conn, sql(vtxList)));
        if (got !== want) wrong.push(`threads ${threads}: ${got}`);
      }
    }
    await conn.run('RESET threads');
    expect(wrong).toEqual([]);
  });
});

// A straddling zone where few rows pass: a column only predicates read is filtered with its values
// left packed (runs, dictionary codes), and the aggregated columns are decoded only in the blocks
// of 2,048 rows where a row passes (pushed_aggregate.cpp, AddSelectedBlocks).
describe('aggregates under filters that keep few rows of a zone', () => {
  const dir = tempDir('vtx-sparse-');
  let conn: DuckDBConnection;
  const file = `${dir}/sparse.vtx`;
  const from = `vortex_scan(${sqlString(file)})`;

  beforeAll(async () => {
    ({ conn } = await openDb());
    // k: runs of 700 rows cycling through 7 values (run-length); c: 5 strings (dictionary); the
    // values: every fixed width, with NULLs, clustered and random.
    await conn.run(`CREATE TABLE sparse AS SELECT i,
        ((i // 700) % 7)::DOUBLE / 4 AS k, ['a', 'b', 'c', 'd', 'e'][1 + ((i // 3000) % 5)::INTEGER] AS c,
        CASE WHEN i % 13 = 0 THEN NULL ELSE (hash(i) % 100000)::BIGINT - 50000 END AS b,
        ((i // 10)::DECIMAL(12,2) / 7)::DECIMAL(12,2) AS dec, (hash(i * 3) % 1000)::DOUBLE / 8 AS d,
        (hash(i * 5))::HUGEINT * 1000 AS h, DATE '2020-01-01' + (i // 500)::INTEGER AS day, (i % 200 - 100)::TINYINT AS t
      FROM range(150000) r(i)`);
    await conn.run(`COPY (SELECT * FROM sparse ORDER BY i) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 30000)`);
  });

  it('answers as DuckDB does, pushed, over run-length and dictionary filter columns', async () => {
    const encodings = (await rows(conn, `SELECT DISTINCT column_name, encoding FROM vortex_metadata(${sqlString(file)}) WHERE column_name IN ('k', 'c') ORDER BY ALL`)).map((r) => r.join(' '));
    expect(encodings).toEqual(['c dictionary', 'k rle']);
    for (const where of ['k = 0.25', 'k = 0.25 AND k <> 1.25', "c = 'c' AND k >= 1.25", 'k IN (0.5, 1.5) AND i % 3 = 0', 'k = 1.5 AND b > 0']) {
      const sql = (t: string) => `SELECT count(*), count(b), sum(b), min(b), max(b), sum(dec), avg(d), sum(h), min(day), max(day), sum(t) FROM ${t} WHERE ${where}`;
      expect(await isPushed(conn, sql(from)), where).toBe(true);
      expect((await rows(conn, sql(from))).map((r) => r.map(show)), where).toEqual((await rows(conn, sql('sparse'))).map((r) => r.map(show)));
    }
  });
});
