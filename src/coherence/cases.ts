/**
 * The cases of the coherence report: every row of the seed matrix, then cases of our own that
 * the seed does not cover (DECIMAL/HUGEINT/UBIGINT sums near overflow, -0.0, an empty file,
 * all-NULL zones mixed with values, strings under a collation, count(*)).
 *
 * A case is data only: a one-column table `x`, the aggregate over it, and how it is written.
 * Everything measured about it comes from measure.ts at run time.
 */
import type { SeedRow, SeedValue } from './seed';

/** The aggregate as the rules name it (`count_star` is `count(*)`). */
export type CaseFn = 'count_star' | 'count' | 'sum' | 'avg' | 'min' | 'max' | 'count_distinct' | 'approx_count_distinct';
/** The Vortex kernel answering it with Vortex's own semantics (vortex_kernel); none for distinct counts. */
export type KernelName = 'count_rows' | 'count' | 'sum' | 'mean' | 'min' | 'max' | 'none';

/** What the seed documents for a row; not measured here. */
export interface Documented {
  ansi: SeedValue;
  datafusion: SeedValue;
  /** The seed's Vortex column, which the measured Vortex column must reproduce. */
  vortex: SeedValue;
  /** The upstream vortex-duckdb integration as the seed documents it. */
  vortex_duckdb: SeedValue;
  pushable: boolean;
}

export interface CoherenceCase {
  /** Stable, short: S01.. for seed rows, E01.. for ours. */
  id: string;
  source: 'seed' | 'extra';
  /** The index of the row in the seed file, for seed cases. */
  seedIndex?: number;
  /** Section heading in the report. */
  group: string;
  /** DuckDB type of the column x. */
  type: string;
  /** The column's values as shown in the report. */
  values: string;
  /** A query producing the table: one column named x. */
  table: string;
  fn: CaseFn;
  /** The aggregate expression over x, as written in the query. */
  expr: string;
  kernel: KernelName;
  /**
   * False when the aggregate's argument is not the plain column as DuckDB binds it (a
   * collation wraps it): the reader cannot answer it, whatever the rules say for the type.
   */
  plainArgument: boolean;
  /** Why, for people reading the report. */
  note?: string;
  /** COPY ... (ROW_GROUP_SIZE n): small zones to mix all-NULL zones with values. */
  rowGroupSize?: number;
  /** Settings applied around the case's queries (and reset after). */
  settings?: Readonly<Record<string, string>>;
  documented?: Documented;
  /**
   * Per group: the table has a key `k` besides `x` and the query is `SELECT <expr> ... GROUP BY k
   * ORDER BY k`; every group's answer is shown, ` | ` between them. Zones hold one group each.
   */
  groupBy?: boolean;
  /**
   * Float sum/avg whose values DuckDB does not add exactly: the pushed answer must be the exact
   * sum (or mean) rounded once (rules.ts, FLOAT_SUM_PROMISE), computed here in BigInt
   * arithmetic; pushdown off must still be DuckDB's own answer.
   */
  exactFloat?: boolean;
}

const KERNEL_OF: Record<CaseFn, KernelName> = {
  count_star: 'count_rows', count: 'count', sum: 'sum', avg: 'mean', min: 'min', max: 'max',
  count_distinct: 'none', approx_count_distinct: 'none',
};

/** Splits `['nan', 1, NULL]` into its elements (no element of ours contains a comma). */
export function listItems(values: string): string[] {
  const body = values.trim();
  if (!body.startsWith('[') || !body.endsWith(']')) throw new Error(`not a list literal: ${values}`);
  return body.slice(1, -1).split(',').map((e) => e.trim()).filter((e) => e.length > 0);
}

/**
 * `['nan', 1, NULL]` as a list of `type`, each element cast on its own: a plain list literal
 * would first unify its elements (and `-0.0` would lose its sign as a DECIMAL).
 */
export function typedList(values: string, type: string): string {
  const items = listItems(values).map((e) => (e.toUpperCase() === 'NULL' ? `NULL::${type}` : `CAST(${e} AS ${type})`));
  return `[${items.join(', ')}]::${type}[]`;
}

function listTable(values: string, type: string): string {
  return `SELECT unnest(${typedList(values, type)}) AS x`;
}

function exprOf(fn: CaseFn): string {
  if (fn === 'count_star') return 'count(*)';
  if (fn === 'count_distinct') return 'count(DISTINCT x)';
  return `${fn}(x)`;
}

const SEED_GROUPS: Record<string, string> = {
  BIGINT: 'Seed: integer (BIGINT)',
  DOUBLE: 'Seed: floating point (DOUBLE)',
  VARCHAR: 'Seed: string (VARCHAR)',
};

/** One case per seed row, in the seed's order. */
export function seedCases(seed: readonly SeedRow[]): CoherenceCase[] {
  return seed.map((row, i) => ({
    id: `S${String(i + 1).padStart(2, '0')}`,
    source: 'seed',
    seedIndex: i,
    group: SEED_GROUPS[row.type] ?? `Seed: ${row.type}`,
    type: row.type,
    values: row.values,
    table: listTable(row.values, row.type),
    fn: row.fn,
    expr: exprOf(row.fn),
    kernel: KERNEL_OF[row.fn],
    plainArgument: true,
    documented: {
      ansi: row.ansi, datafusion: row.datafusion, vortex: row.vortex, vortex_duckdb: row.vortex_duckdb, pushable: row.pushable,
    },
  }));
}

type ExtraSpec = Omit<CoherenceCase, 'id' | 'source' | 'group' | 'kernel' | 'expr' | 'plainArgument' | 'table' | 'fn'> & {
  fns: CaseFn[];
  table?: string;
  expr?: (fn: CaseFn) => string;
  plainArgument?: boolean;
};

function extra(group: string, spec: ExtraSpec): Omit<CoherenceCase, 'id'>[] {
  const { fns, expr, table, plainArgument, ...rest } = spec;
  return fns.map((fn) => ({
    ...rest,
    source: 'extra' as const,
    group,
    fn,
    expr: expr ? expr(fn) : exprOf(fn),
    kernel: KERNEL_OF[fn],
    plainArgument: plainArgument ?? true,
    table: table ?? listTable(spec.values, spec.type),
  }));
}

const DEC18_MAX = '9999999999999999.99';
const HUGE_MAX = "'170141183460469231731687303715884105727'";
const HUGE_MIN = "'-170141183460469231731687303715884105728'";
const UBIG_MAX = '18446744073709551615';
const BIG_MAX = '9223372036854775807';
const BIG_MIN = '-9223372036854775808';
const ALL: CaseFn[] = ['count_star', 'count', 'sum', 'avg', 'min', 'max'];
const DISTINCT: CaseFn[] = ['count_distinct', 'approx_count_distinct'];

/** Our cases beyond the seed. */
export function extraCases(): CoherenceCase[] {
  const cases = [
    ...extra('DECIMAL near overflow', {
      type: 'DECIMAL(18,2)', values: `10 × ${DEC18_MAX}`, fns: ['sum', 'avg', 'max'],
      table: `SELECT CAST('${DEC18_MAX}' AS DECIMAL(18,2)) AS x FROM range(10)`,
      note: 'the unscaled sum passes 2^63',
    }),
    ...extra('DECIMAL near overflow', { type: 'DECIMAL(9,3)', values: '[1.005, -2.010, NULL]', fns: ['sum', 'avg', 'min'] }),
    ...extra('DECIMAL near overflow', {
      type: 'DECIMAL(38,10)', values: "['9999999999999999999999999999.9999999999', '-0.0000000001']", fns: ['sum', 'min', 'max'],
      note: 'wide decimals: no exact zone sum is kept, min/max are',
    }),
    ...extra('HUGEINT and UBIGINT near overflow', { type: 'UBIGINT', values: `[${UBIG_MAX}, ${UBIG_MAX}, NULL]`, fns: ['sum', 'avg', 'max'] }),
    ...extra('HUGEINT and UBIGINT near overflow', { type: 'BIGINT', values: `[${BIG_MAX}, ${BIG_MAX}]`, fns: ['sum', 'avg'] }),
    ...extra('HUGEINT and UBIGINT near overflow', { type: 'BIGINT', values: `[${BIG_MIN}, -1, NULL]`, fns: ['sum', 'min'] }),
    ...extra('HUGEINT and UBIGINT near overflow', {
      type: 'HUGEINT', values: `[${HUGE_MAX}, 1]`, fns: ['sum'], note: 'overflows HUGEINT: DuckDB raises an error',
    }),
    ...extra('HUGEINT and UBIGINT near overflow', { type: 'HUGEINT', values: `[${HUGE_MAX}, -1, ${HUGE_MIN}]`, fns: ['sum', 'min', 'max'] }),
    ...extra('Negative zero', { type: 'DOUBLE', values: "['-0.0', '-0.0']", fns: ['sum', 'avg', 'min', 'max', 'count'] }),
    ...extra('Negative zero', { type: 'DOUBLE', values: "['-0.0', '0.0', NULL]", fns: ['sum', 'min', 'max'] }),
    ...extra('Negative zero', { type: 'FLOAT', values: "['-0.0', 'nan', 1.5]", fns: ['sum', 'count', 'avg'] }),
    ...extra('Empty file', {
      type: 'BIGINT', values: '[] (0 rows)', fns: ALL, table: 'SELECT x FROM (SELECT NULL::BIGINT AS x) WHERE false',
    }),
    ...extra('Empty file', {
      type: 'DOUBLE', values: '[] (0 rows)', fns: ['sum', 'avg'], table: 'SELECT x FROM (SELECT NULL::DOUBLE AS x) WHERE false',
    }),
    ...extra('Empty file', {
      type: 'VARCHAR', values: '[] (0 rows)', fns: ['min', 'count'], table: 'SELECT x FROM (SELECT NULL::VARCHAR AS x) WHERE false',
    }),
    ...extra('All-NULL zones mixed with values', {
      type: 'BIGINT', values: '[NULL, NULL, 1, 2, NULL, NULL]', fns: ALL, rowGroupSize: 2, note: 'zones of 2 rows: NULL | values | NULL',
    }),
    ...extra('All-NULL zones mixed with values', {
      type: 'DOUBLE', values: "[NULL, NULL, 'nan', 1, NULL, NULL]", fns: ['sum', 'avg', 'count'], rowGroupSize: 2,
    }),
    ...extra('All-NULL zones mixed with values', {
      type: 'DOUBLE', values: "[NULL, NULL, 'inf', 1, NULL, NULL]", fns: ['sum', 'max'], rowGroupSize: 2,
    }),
    ...extra('All-NULL zones mixed with values', {
      type: 'VARCHAR', values: "[NULL, NULL, 'b', 'a', NULL, NULL]", fns: ['min', 'max', 'count'], rowGroupSize: 2,
    }),
    ...extra('Strings under a collation', {
      type: 'VARCHAR', values: "['apple', 'Banana', NULL]", fns: ['min', 'max'],
      note: 'binary order: Banana < apple',
    }),
    ...extra('Strings under a collation', {
      type: 'VARCHAR', values: "['apple', 'Banana', NULL]", fns: ['min', 'max'], expr: (fn) => `${fn}(x COLLATE nocase)`,
      plainArgument: false, note: 'the collation wraps the argument: not a plain column',
    }),
    ...extra('Strings under a collation', {
      type: 'VARCHAR', values: "['apple', 'Banana', NULL]", fns: ['min', 'max'], settings: { default_collation: "'nocase'" },
      plainArgument: false, note: "SET default_collation = 'nocase': DuckDB binds arg_min/arg_max over lower(x)",
    }),
    ...extra('count(*)', { type: 'BIGINT', values: '[1, 2, NULL]', fns: ['count_star'] }),
    ...extra('count(*)', { type: 'BIGINT', values: '[NULL, NULL]', fns: ['count_star'] }),
    ...extra('count(*)', { type: 'DOUBLE', values: "['nan', 'nan', NULL]", fns: ['count_star'] }),
    ...extra('count(*)', { type: 'VARCHAR', values: "['banana', NULL]", fns: ['count_star'] }),
    ...extra('Other types', { type: 'BOOLEAN', values: '[true, false, true, NULL]', fns: ['sum', 'min', 'max'] }),
    ...extra('Other types', { type: 'DATE', values: "['2024-01-02', '2023-12-31', NULL]", fns: ['min', 'max', 'count'] }),
    ...extra('Float sums: the exact sum, rounded once', {
      type: 'DOUBLE', values: '[1e16, 1, -1e16]', fns: ['sum', 'avg'], exactFloat: true,
      note: 'DuckDB adds in row order and rounds every partial sum (1e16 + 1 is 1e16); the pushed sum is the exact sum rounded once, whatever the zones, files, threads or order',
    }),
    ...extra('Float sums: the exact sum, rounded once', {
      type: 'DOUBLE', values: '[0.1, 0.2, 0.3]', fns: ['sum', 'avg'], exactFloat: true,
      note: 'the exact sum of these three doubles is 0.6000000000000000055…, nearest to 0.6; DuckDB rounds 0.1 + 0.2 first',
    }),
    ...extra('Float sums: the exact sum, rounded once', {
      type: 'DOUBLE', values: '[1, 2, 3.5]', fns: ['sum', 'avg'], exactFloat: true,
      note: 'where every addition is exact, DuckDB and the pushed sum agree',
    }),
    ...extra('Distinct counts', {
      type: 'BIGINT', values: '[3, 1, 3, NULL, 1, 2]', fns: DISTINCT, rowGroupSize: 2,
      note: "each zone keeps its distinct values and DuckDB's HyperLogLog registers; NULL is never counted",
    }),
    ...extra('Distinct counts', {
      type: 'VARCHAR', values: "['a', 'A', 'a ', NULL, 'a']", fns: DISTINCT,
      note: 'bytewise: a, A and "a " are three values',
    }),
    ...extra('Distinct counts', {
      type: 'VARCHAR', values: "['a', 'A', NULL]", fns: ['count_distinct'], expr: () => 'count(DISTINCT x COLLATE nocase)',
      note: "DuckDB's count(DISTINCT) compares bytewise even under COLLATE nocase (a and A are two values); pushed, bytewise too",
    }),
    ...extra('Distinct counts', {
      type: 'DOUBLE', values: "['nan', 'nan', '-0.0', '0.0', 1.5, NULL]", fns: DISTINCT,
      note: 'NaNs are one value and -0.0 = 0.0 for DuckDB: count(DISTINCT) over floats is left to DuckDB; the sketch hashes what DuckDB hashes',
    }),
    ...extra('Distinct counts', {
      type: 'BIGINT', values: '[NULL, NULL]', fns: DISTINCT, note: 'all-NULL: 0, not NULL',
    }),
    ...extra('Distinct counts', {
      type: 'DATE', values: "['2024-01-02', '2024-01-02', '2023-12-31', NULL]", fns: DISTINCT,
    }),
  ];
  return cases.map((c, i) => ({ ...c, id: `E${String(i + 1).padStart(2, '0')}` }));
}

/**
 * `values` as group `a` and as many NULLs as group `b` (the all-NULL group), `a` first, so that
 * with zones of that many rows each zone holds one group.
 */
function groupedTable(values: string, type: string): { table: string; rowGroupSize: number } {
  const n = listItems(values).length;
  return {
    table: `SELECT k, x FROM (SELECT 'a' AS k, unnest(${typedList(values, type)}) AS x, generate_subscripts(${typedList(values, type)}, 1) AS i
              UNION ALL SELECT 'b', NULL::${type}, i FROM range(1, ${n + 1}) r(i)) ORDER BY k, i`,
    rowGroupSize: Math.max(1, n),
  };
}

/**
 * Every seed row once more per group, beside an all-NULL group, and the overflow and infinity
 * cases of our own: what a pushed GROUP BY returns for each group must be DuckDB's.
 */
export function groupedCases(seed: readonly SeedRow[]): CoherenceCase[] {
  const fromSeed = seed.map((row) => ({
    type: row.type, values: row.values, fn: row.fn, note: undefined as string | undefined,
  }));
  const ours: Array<{ type: string; values: string; fn: CaseFn; note?: string }> = [
    { type: 'BIGINT', values: `[${BIG_MAX}, ${BIG_MAX}, NULL]`, fn: 'sum', note: 'the group sum passes 2^63' },
    { type: 'BIGINT', values: `[${BIG_MAX}, ${BIG_MAX}, NULL]`, fn: 'avg' },
    { type: 'DOUBLE', values: "['inf', '-inf', 1]", fn: 'sum' },
    { type: 'DOUBLE', values: "['inf', 1, NULL]", fn: 'avg' },
    { type: 'DECIMAL(18,2)', values: `[${DEC18_MAX}, ${DEC18_MAX}]`, fn: 'sum' },
  ];
  return [...fromSeed, ...ours].map((c, i) => ({
    id: `G${String(i + 1).padStart(2, '0')}`,
    source: 'extra' as const,
    group: 'Per group (GROUP BY k; group a: the values, group b: as many NULLs)',
    type: c.type,
    values: c.values,
    ...groupedTable(c.values, c.type),
    fn: c.fn,
    expr: exprOf(c.fn),
    kernel: KERNEL_OF[c.fn],
    plainArgument: true,
    groupBy: true,
    ...(c.note ? { note: c.note } : {}),
  }));
}

/** Every case of the report: the seed's, then ours, then both per group. */
export function allCases(seed: readonly SeedRow[]): CoherenceCase[] {
  return [...seedCases(seed), ...extraCases(), ...groupedCases(seed)];
}
