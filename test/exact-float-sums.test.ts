import fc from 'fast-check';
import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { explain, isPushed, openDb, rows, show, sqlString, tempDir } from './helpers';
import { exactFloatAggregates } from '../src/coherence/exact-float';

// The same float sum in every plan over .vtx (issue 55): where a query is not pushed (a float
// min/max beside the sum, GROUP BY with LIMIT, a join, FILTER, ROLLUP, a window, hive partitions),
// sum/avg/fsum/favg of a FLOAT or DOUBLE column are still the correctly rounded exact sum, as the
// pushed plans are. The expectations are computed independently of the addon
// (src/coherence/exact-float.ts: every double is an integer times 2^-1074, summed as a BigInt).

const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261206);
const RUNS = Number(process.env.VORTEX_FC_RUNS ?? 25);

const literal = (v: number | null, type: string) =>
  v === null ? `NULL::${type}` : Number.isNaN(v) ? `'nan'::${type}` : `'${Object.is(v, -0) ? '-0.0' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v)}'::${type}`;

let conn: DuckDBConnection;
const dir = tempDir('vtx-exact-');
let made = 0;

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run(`CREATE TABLE dim AS SELECT * FROM (VALUES (0, 'zero'), (1, 'one'), (2, 'two')) v(g, name)`);
});

/** `values` (row i, group g = i % 3) as a table, one or more .vtx files and hive partitions by g. */
async function write(values: Array<number | null>, type: string, zone: number, files: number) {
  const n = made++;
  const table = `src${n}`;
  await conn.run(`CREATE TABLE ${table} (i INTEGER, g INTEGER, k VARCHAR, d ${type})`);
  for (let start = 0; start < values.length; start += 500) {
    const part = values.slice(start, start + 500).map((v, j) => `(${start + j}, ${(start + j) % 3}, 'all', ${literal(v, type)})`);
    await conn.run(`INSERT INTO ${table} VALUES ${part.join(', ')}`);
  }
  const sub = join(dir, `t${n}`);
  mkdirSync(sub, { recursive: true });
  const per = Math.max(1, Math.ceil(values.length / files));
  for (let f = 0; f < files; f++) {
    await conn.run(`COPY (SELECT * FROM ${table} WHERE i >= ${f * per} AND i < ${(f + 1) * per} ORDER BY i) TO ${sqlString(join(sub, `part-${f}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE ${zone})`);
  }
  await conn.run(`COPY (SELECT * FROM ${table} ORDER BY i) TO ${sqlString(join(sub, 'hive'))} (FORMAT vortex, PARTITION_BY (g), ROW_GROUP_SIZE ${zone})`);
  return {
    table,
    src: `read_vortex(${sqlString(join(sub, 'part-*.vtx'))})`,
    hive: `read_vortex(${sqlString(join(sub, 'hive', '*', '*.vtx'))}, hive_partitioning := true)`,
  };
}

/** sum, avg, fsum, favg as the test computes them, shown. */
function want(values: Array<number | null>): string[] {
  const plain = exactFloatAggregates(values, false);
  const kahan = exactFloatAggregates(values, true);
  return [plain.sum, plain.avg, kahan.sum, kahan.avg].map(show);
}

const special = fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1e300, -1e300, 1e308, -1e308, 5e-324, -5e-324, 2.2250738585072014e-308, 1e16, -1e16, 1, 0.1);
const doubleValue = fc.oneof(
  { weight: 1, arbitrary: special },
  { weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 2, arbitrary: fc.integer({ min: -100000, max: 100000 }).map((c) => c / 100) },
);

describe('property: float sums that are not pushed are the correctly rounded exact sum', () => {
  for (const type of ['DOUBLE', 'FLOAT']) {
    it(`${type}: beside a float min/max, GROUP BY with LIMIT, a join, FILTER, ROLLUP, a window, hive; 1-4 threads`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.option(type === 'FLOAT' ? doubleValue.map((v) => Math.fround(v)) : doubleValue, { freq: 8 }), { minLength: 0, maxLength: 400 }),
          fc.constantFrom(1, 7, 100, 122880),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 1, max: 4 }),
          fc.boolean(),
          async (raw, zone, files, threads, finiteOnly) => {
            const values = finiteOnly ? raw.map((v) => (v !== null && !Number.isFinite(v) ? 1 : v)) : raw;
            const { src, hive } = await write(values, type, zone, files);
            await conn.run(`SET threads = ${threads}`);
            const all = want(values);
            const even = want(values.filter((_v, i) => i % 2 === 0));
            const group = (g: number) => want(values.filter((_v, i) => i % 3 === g));
            const aggs = (c: string) => `sum(${c}), avg(${c}), fsum(${c}), favg(${c})`;
            const cases: Array<[string, string[][]]> = [
              // Not pushed: float min/max is never pushed.
              [`SELECT ${aggs('d')}, min(d) IS NULL FROM ${src}`, [[...all, show(values.every((v) => v === null))]]],
              // Grouped with a float max beside, and a LIMIT.
              [`SELECT k, ${aggs('d')}, max(d) IS NULL FROM ${src} GROUP BY k ORDER BY k LIMIT 1`, values.length ? [[show('all'), ...all, show(values.every((v) => v === null))]] : []],
              // A join with a dimension table: the column's binding followed back to the scan.
              [`SELECT dim.name, ${aggs('s.d')} FROM ${src} s JOIN dim ON s.g = dim.g GROUP BY dim.name, dim.g ORDER BY dim.g`,
                [0, 1, 2].filter((g) => values.some((_v, i) => i % 3 === g)).map((g) => [show(['zero', 'one', 'two'][g]), ...group(g)])],
              // An aggregate's own FILTER.
              [`SELECT sum(d) FILTER (WHERE i % 2 = 0), avg(d) FILTER (WHERE i % 2 = 0), fsum(d) FILTER (WHERE i % 2 = 0), favg(d) FILTER (WHERE i % 2 = 0) FROM ${src}`, [even]],
              // ROLLUP: the group and the grand total.
              [`SELECT k, ${aggs('d')} FROM ${src} GROUP BY ROLLUP (k) ORDER BY k NULLS LAST`, values.length ? [[show('all'), ...all], ['NULL', ...all]] : [['NULL', ...all]]],
              // Hive partitions, with a float max beside.
              [`SELECT g::VARCHAR, ${aggs('d')}, max(d) IS NULL FROM ${hive} GROUP BY g ORDER BY g`,
                [0, 1, 2].filter((g) => values.some((_v, i) => i % 3 === g)).map((g) => [show(String(g)), ...group(g), show(values.every((v, i) => i % 3 !== g || v === null))])],
              // Windows: the whole partition as the frame, and a running sum's last row.
              [`SELECT DISTINCT sum(d) OVER (), avg(d) OVER (), fsum(d) OVER (), favg(d) OVER () FROM ${src}`, values.length ? [all] : []],
              [`SELECT s FROM (SELECT i, sum(d) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s FROM ${src}) ORDER BY i DESC LIMIT 1`, values.length ? [[all[0]]] : []],
            ];
            for (const [sql, expected] of cases) {
              if (values.length === 0 && sql.includes(hive)) continue; // no rows, no partition written
              const got = (await rows(conn, sql)).map((r) => r.map(show));
              expect(got, `${sql} on ${threads} threads, zones of ${zone}, ${files} file(s)`).toEqual(expected);
            }
          },
        ),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      await conn.run('RESET threads');
    }, 600_000);
  }
});

describe('the plans', () => {
  it('EXPLAIN shows the exact aggregate where DuckDB sums, and repeated runs agree with the pushed plan', async () => {
    const values = Array.from({ length: 30000 }, (_v, i) => ((i * 7919) % 100003) / 100 + (i % 7 === 0 ? 1e12 : 0) - (i % 7 === 3 ? 1e12 : 0));
    const { src } = await write(values, 'DOUBLE', 1000, 3);
    const pushed = `SELECT sum(d) FROM ${src}`;
    expect(await isPushed(conn, pushed)).toBe(true);
    const sum = (await rows(conn, pushed))[0][0];
    expect(show(sum)).toBe(want(values)[0]);
    // Grouped, a float min keeps the whole list DuckDB's: its aggregate sums, exactly.
    const mixed = `SELECT sum(d), min(d) FROM ${src} GROUP BY k`;
    expect(await explain(conn, mixed)).toContain('vortex_exact_sum');
    for (let run = 0; run < 5; run++) {
      await conn.run(`SET threads = ${1 + (run % 4)}`);
      expect((await rows(conn, mixed))[0][0]).toBe(sum);
    }
    await conn.run('RESET threads');
  });

  it('vortex_exact_float_sums = false gives DuckDB\'s own summation back (equal to a table\'s on one thread)', async () => {
    const values = [1e16, ...Array<number>(1999).fill(1), -1e16, 0.1, 0.2, 0.3];
    const { table, src } = await write(values, 'DOUBLE', 100, 2);
    const sql = (f: string) => `SELECT sum(d), avg(d), fsum(d), favg(d), min(d) FROM ${f} GROUP BY k`;
    await conn.run('SET threads = 1');
    try {
      expect((await rows(conn, sql(src)))[0].slice(0, 4).map(show)).toEqual(want(values));
      await conn.run('SET vortex_exact_float_sums = false');
      expect(await explain(conn, sql(src))).not.toContain('vortex_exact');
      const own = (await rows(conn, sql(table)))[0].map(show);
      expect((await rows(conn, sql(src)))[0].map(show)).toEqual(own);
      // DuckDB's order-dependent sum is not the exact one here: the setting did something.
      expect(own[0]).not.toBe(want(values)[0]);
    } finally {
      await conn.run('RESET vortex_exact_float_sums');
      await conn.run('RESET threads');
    }
  });

  it('leaves alone what does not come from a .vtx float column', async () => {
    const { table, src } = await write([0.1, 0.2, 0.3], 'DOUBLE', 100, 1);
    for (const sql of [`SELECT sum(d), min(d) FROM ${table}`, `SELECT sum(d * 2), min(d) FROM ${src}`, `SELECT sum(i::DOUBLE), min(d) FROM ${src}`]) {
      expect(await explain(conn, sql), sql).not.toContain('vortex_exact');
    }
  });
});

describe('a SELECT list pushed in part', () => {
  it('pushes what it can beside a float min/max, leaves the rest to DuckDB over only its columns, and EXPLAIN shows both', async () => {
    const values = Array.from({ length: 20000 }, (_v, i) => (i % 11 === 0 ? null : ((i * 37) % 1000) / 8));
    const { table, src } = await write(values, 'DOUBLE', 1000, 2);
    const sql = (f: string) => `SELECT sum(i), count(*), min(d), max(d), sum(d), count(d) FROM ${f}`;
    const plan = (await explain(conn, sql(src))).replace(/[\s│┌┐└┘├┤┬┴─]+/g, ' ');
    // Side by side: the reader's one-row scan and DuckDB's aggregate, joined.
    for (const part of ['CROSS_PRODUCT', 'VORTEX_SCAN_AGGREGATE', 'Pushed Aggregates:', 'UNGROUPED_AGGREGATE', 'count_star()', 'count(d)']) expect(plan).toContain(part);
    expect(plan).toMatch(/Not Pushed: min\(d\): float min\/max is never pushed/);
    // The plain scan reads only what DuckDB still aggregates.
    expect(plan).toMatch(/Projections: d /);
    const got = (await rows(conn, sql(src)))[0].map(show);
    const own = (await rows(conn, sql(table)))[0].map(show);
    expect(got.slice(0, 4)).toEqual(own.slice(0, 4));
    expect(got[4]).toBe(want(values)[0]);
    expect(got[5]).toBe(own[5]);
  });

  it('under a filter (the two parts would read the same zones twice) the whole list stays DuckDB\'s', async () => {
    const { table, src } = await write([1, 2, 3, 4, 5, 6], 'DOUBLE', 2, 1);
    const sql = (f: string) => `SELECT sum(i), min(d) FROM ${f} WHERE i > 2`;
    expect(await explain(conn, sql(src))).not.toContain('CROSS_PRODUCT');
    expect((await rows(conn, sql(src))).map((r) => r.map(show))).toEqual((await rows(conn, sql(table))).map((r) => r.map(show)));
  });
});

describe('constant zones', () => {
  it('a value repeated over whole zones (constant vectors, added as one product) sums exactly', async () => {
    const values = [...Array<number>(30000).fill(0.1), ...Array<number>(20000).fill(-3.7e-5), ...Array<number>(10000).fill(1e300), ...Array<number>(10000).fill(-1e300), ...Array<number>(5000).fill(5e-324)];
    const { src } = await write(values, 'DOUBLE', 5000, 1);
    for (const threads of [1, 3]) {
      await conn.run(`SET threads = ${threads}`);
      const ungrouped = (await rows(conn, `SELECT sum(d), avg(d), fsum(d), favg(d), min(d) FROM ${src}`))[0].slice(0, 4).map(show);
      expect(ungrouped, `${threads} threads`).toEqual(want(values));
      const grouped = (await rows(conn, `SELECT k, sum(d), avg(d), fsum(d), favg(d), max(d) FROM ${src} GROUP BY k`))[0].slice(1, 5).map(show);
      expect(grouped, `${threads} threads`).toEqual(want(values));
    }
    await conn.run('RESET threads');
  });

  it('a float partition key (a constant vector per file, added as one product) sums exactly', async () => {
    const sub = join(dir, 'float-keys');
    mkdirSync(sub, { recursive: true });
    const keys = [0.1, -3.7e-5, 1e300, -1e300, 5e-324];
    const counts = [7000, 3000, 2500, 2500, 4096];
    const values = keys.flatMap((k, j) => Array<number>(counts[j]).fill(k));
    await conn.run(`COPY (SELECT i, p FROM (VALUES ${keys.map((k, j) => `(${literal(k, 'DOUBLE')}, ${counts[j]})`).join(', ')}) v(p, n), range(n) r(i))
      TO ${sqlString(sub)} (FORMAT vortex, PARTITION_BY (p))`);
    const src = `read_vortex(${sqlString(join(sub, '*', '*.vtx'))}, hive_partitioning := true, hive_types := {'p': 'DOUBLE'})`;
    expect(await explain(conn, `SELECT sum(p), min(p) FROM ${src}`)).toContain('vortex_exact_sum');
    const got = (await rows(conn, `SELECT sum(p), avg(p), fsum(p), favg(p), min(p) FROM ${src}`))[0].slice(0, 4).map(show);
    expect(got).toEqual(want(values));
  });
});
