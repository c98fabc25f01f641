import fc from 'fast-check';
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { isPushed, openDb, show, sqlString, tempDir } from './helpers';

// Property: for random columns of every pushable type — NULLs, NaN, ±inf, -0.0, extremes,
// all-NULL zones — over many zones and several files, all pushable aggregates in one query
// give DuckDB's values and types: pushed = not pushed = native table.
// Floats: special values (NULL, NaN, ±inf) must be identical; finite sums and averages may
// differ only by reassociation (DuckDB's own result changes with its thread count), bounded
// here by n * 2^-52 * sum(|x|).

const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261129);
const RUNS = Number(process.env.VORTEX_FC_RUNS ?? 30);

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const bigintIn = (min: bigint, max: bigint) =>
  fc.oneof(fc.constantFrom(min, max, 0n, min + 1n, max - 1n), fc.bigInt({ min, max }), fc.bigInt({ min: -100n > min ? -100n : min, max: 100n < max ? 100n : max }));
const decimal = (digits: number, scale: number) => {
  const lim = 10n ** BigInt(digits) - 1n;
  return bigintIn(-lim, lim).map((v) => {
    const neg = v < 0n;
    const s = (neg ? -v : v).toString().padStart(scale + 1, '0');
    return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  });
};
const floatLiteral = (v: number) =>
  Number.isNaN(v) ? "'nan'" : v === Infinity ? "'inf'" : v === -Infinity ? "'-inf'" : Object.is(v, -0) ? "'-0.0'" : `'${v}'`;

interface TypeCase {
  type: string;
  value: fc.Arbitrary<string>; // SQL expression of that type's value
  aggs: string[];
  float?: boolean;
}

const INT_AGGS = ['count(*)', 'count(x)', 'sum(x)', 'avg(x)', 'min(x)', 'max(x)'];
const ORDER_AGGS = ['count(*)', 'count(x)', 'min(x)', 'max(x)'];
const ints: Array<[string, bigint, bigint]> = [
  ['TINYINT', -128n, 127n], ['SMALLINT', -32768n, 32767n], ['INTEGER', -(2n ** 31n), 2n ** 31n - 1n],
  ['BIGINT', -(2n ** 63n), 2n ** 63n - 1n], ['UTINYINT', 0n, 255n], ['USMALLINT', 0n, 65535n],
  ['UINTEGER', 0n, 2n ** 32n - 1n], ['UBIGINT', 0n, 2n ** 64n - 1n],
];

const CASES: TypeCase[] = [
  ...ints.map(([type, lo, hi]) => ({ type, value: bigintIn(lo, hi).map(String), aggs: INT_AGGS })),
  { type: 'BOOLEAN', value: fc.boolean().map(String), aggs: ['count(*)', 'count(x)', 'sum(x)', 'min(x)', 'max(x)'] },
  { type: 'HUGEINT', value: bigintIn(-(2n ** 127n), 2n ** 127n - 1n).map(String), aggs: ORDER_AGGS },
  { type: 'DECIMAL(4,1)', value: decimal(4, 1), aggs: INT_AGGS },
  { type: 'DECIMAL(9,4)', value: decimal(9, 4), aggs: INT_AGGS },
  { type: 'DECIMAL(18,3)', value: decimal(18, 3), aggs: INT_AGGS },
  { type: 'DECIMAL(30,5)', value: decimal(30, 5), aggs: ORDER_AGGS },
  {
    type: 'DOUBLE', float: true, aggs: ['count(*)', 'count(x)', 'sum(x)', 'avg(x)'],
    value: fc.oneof(fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1e300, -1e300),
      fc.double({ min: -1e300, max: 1e300, noNaN: true }), fc.integer({ min: -1000, max: 1000 })).map(floatLiteral),
  },
  {
    type: 'FLOAT', float: true, aggs: ['count(*)', 'count(x)', 'sum(x)', 'avg(x)'],
    value: fc.oneof(fc.constantFrom(NaN, Infinity, -Infinity, -0, 3.4028234663852886e38), fc.float({ noNaN: false }),
      fc.integer({ min: -1000, max: 1000 })).map(floatLiteral),
  },
  {
    type: 'VARCHAR', aggs: ORDER_AGGS,
    value: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constantFrom('', 'a', 'a\u00e9', 'ß', '😀'),
      fc.string({ minLength: 60, maxLength: 90 })).map((s) => quote(s.replace(/\0/g, ''))),
  },
  {
    type: 'BLOB', aggs: ORDER_AGGS,
    value: fc.oneof(fc.uint8Array({ maxLength: 6 }), fc.uint8Array({ minLength: 65, maxLength: 80 }))
      .map((b) => `'${[...b].map((x) => `\\x${x.toString(16).padStart(2, '0')}`).join('')}'`),
  },
  { type: 'DATE', aggs: ORDER_AGGS, value: fc.integer({ min: -1_000_000, max: 1_000_000 }).map((d) => `(DATE '1970-01-01' + ${d})`) },
  { type: 'TIMESTAMP', aggs: ORDER_AGGS, value: fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }).map((us) => `make_timestamp(${us}::BIGINT)`) },
  { type: 'TIME', aggs: ORDER_AGGS, value: fc.integer({ min: 0, max: 86_399_999 }).map((ms) => `(TIME '00:00:00' + INTERVAL (${ms}) MILLISECOND)`) },
  { type: 'TIMESTAMPTZ', aggs: ORDER_AGGS, value: fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }).map((us) => `make_timestamp(${us}::BIGINT)::TIMESTAMPTZ`) },
];

/** A column: NULL blocks around a body that mixes NULLs and values (so some zones are all-NULL). */
const column = (value: fc.Arbitrary<string>) =>
  fc.tuple(fc.nat({ max: 40 }), fc.array(fc.option(value, { freq: 4 }), { maxLength: 250 }), fc.nat({ max: 40 }))
    .map(([pre, body, post]) => [...Array(pre).fill(null), ...body, ...Array(post).fill(null)] as Array<string | null>);

function cell(r: DuckDBResultReader, i: number): unknown {
  return r.getRowsJS()[0][i];
}

describe('pushed aggregates equal DuckDB on random data', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let counter = 0;

  beforeAll(async () => {
    ({ conn } = await openDb());
  });

  it.each(CASES.map((c) => [c.type, c] as const))('%s', async (_name, tc) => {
    await fc.assert(
      fc.asyncProperty(column(tc.value), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 3 }), async (values, zone, nfiles) => {
        const id = counter++;
        await conn.run('SET vortex_pushdown = true');
        await conn.run('DROP TABLE IF EXISTS t');
        await conn.run('CREATE TABLE t (id INTEGER, x ' + tc.type + ')');
        if (values.length) {
          await conn.run(`INSERT INTO t VALUES ${values.map((v, i) => `(${i}, CAST(${v ?? 'NULL'} AS ${tc.type}))`).join(', ')}`);
        }
        const files: string[] = [];
        const per = Math.ceil(values.length / nfiles) || 1;
        for (let f = 0; f < nfiles; f++) {
          const file = `${dir}/p${id}-${f}.vtx`;
          await conn.run(`COPY (SELECT x FROM t WHERE id >= ${f * per} AND id < ${(f + 1) * per} ORDER BY id) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE ${zone})`);
          files.push(sqlString(file));
        }
        const scan = `vortex_scan([${files.join(', ')}])`;
        const q = (from: string) => `SELECT ${tc.aggs.join(', ')} FROM ${from}`;
        expect(await isPushed(conn, q(scan))).toBe(true);
        const native = await conn.runAndReadAll(q('t'));
        const pushed = await conn.runAndReadAll(q(scan));
        await conn.run('SET vortex_pushdown = false');
        const unpushed = await conn.runAndReadAll(q(scan));
        const types = native.columnTypes().map(String);
        expect(pushed.columnTypes().map(String)).toEqual(types);
        expect(unpushed.columnTypes().map(String)).toEqual(types);
        const bound = tc.float ? Number((await conn.runAndReadAll('SELECT coalesce(sum(abs(x::DOUBLE)), 0) FROM t')).getRowsJS()[0][0]) : 0;
        for (let i = 0; i < tc.aggs.length; i++) {
          const want = cell(native, i);
          for (const got of [cell(pushed, i), cell(unpushed, i)]) {
            if (tc.float && typeof want === 'number' && typeof got === 'number' && Number.isFinite(want) && Number.isFinite(got)) {
              const tol = values.length * 2 ** -52 * bound * (tc.aggs[i] === 'avg(x)' ? 1 / Math.max(1, values.length) : 1) * 4;
              expect(Math.abs(got - want), `${tc.aggs[i]}: ${got} vs ${want}`).toBeLessThanOrEqual(tol);
            } else {
              expect(show(got), `${tc.aggs[i]} over ${tc.type}`).toBe(show(want));
            }
          }
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
