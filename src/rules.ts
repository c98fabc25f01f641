/**
 * THE pushdown policy: which aggregates the Vortex reader may answer on DuckDB's behalf,
 * and how its results are rewritten so that DuckDB returns exactly what it would have
 * computed itself. An allow-list: anything absent is not pushed.
 *
 * Keys are what DuckDB actually binds (its optimizers may substitute `count_star` for
 * `count(x)` and `sum_no_overflow` for `sum`) and the stored column type. The native side
 * receives this table compiled by `compileRules` and enforces it, refusing float min/max
 * on its own as well.
 */
import { AGGREGATE_FLAGS, PUSHDOWN_SETTINGS, type PushdownSettingKey } from './catalog';

/** Aggregate names as DuckDB binds them (src/catalog.ts). */
export type AggregateName = keyof typeof AGGREGATE_FLAGS;

/**
 * The per-function switches, each a DuckDB setting `vortex_pushdown_<flag>`: `distinct` is
 * count(DISTINCT x), `approx_distinct` approx_count_distinct(x).
 */
export type PushdownFlag = (typeof AGGREGATE_FLAGS)[AggregateName];

/**
 * Master switch, one switch per aggregate family, `grouped` (GROUP BY answered inside the
 * reader) and `order` (a pushed GROUP BY emits its groups in the query's ORDER BY, see
 * {@link groupedOrder}), and `costBased` (a strategy estimated slower than DuckDB's plain scan and
 * operator is declined; false pushes wherever the rules allow). `enabled: false` turns every
 * other one off. Absent means enabled.
 */
export type PushdownFlags = Partial<Record<PushdownSettingKey, boolean>>;

/**
 * GROUP BY pushdown applies the same allow-list per group, with the same rewrites (an all-NULL
 * group gives NULL for sum/avg/min/max and 0 for count, as DuckDB does). In addition:
 * - keys are plain columns of the scan, uncast (DuckDB's own compressed materialization of
 *   integer and short string keys is applied to each group's key: it is one-to-one); never
 *   FLOAT/DOUBLE (-0.0 and 0.0, NaNs), INTERVAL or TIME WITH TIME ZONE keys, whose equal values
 *   can have different bytes;
 * - DISTINCT, FILTER, ORDER BY inside an aggregate, GROUPING SETS, ROLLUP, CUBE and expressions
 *   as keys leave the query to DuckDB;
 * - sum/avg of 128-bit integers are not pushed per group (the no-overflow proof is global);
 * - a zone whose keys are constant (min = max and no NULL, or all NULL) is answered from its
 *   statistics; other zones are decoded and grouped in the reader, one pass per column over dense
 *   per-zone group ids (dictionary codes, narrow integer ranges, else hashed values). That is
 *   faster than DuckDB's hash aggregate where a zone has few groups (8 groups per 122,880-row
 *   zone: about 2x; 1,000: 1.2-1.6x) and slower where it has many (4,000: 1.5x slower; a group
 *   per few rows: 5-16x slower), so a decoded zone counts as cheap when its metadata bounds its
 *   groups — dictionary code width, exact integer range, multiplied over the keys — to one per
 *   100 rows (200 for a lone monotone bucket key, whose keys come from DuckDB's executor and
 *   cost more per group), and the query is pushed only when at most a quarter of the rows lie in zones that
 *   are not cheap (zones straddling a WHERE filter count the same way). The policy lives in
 *   CheapToGroup (native/duckdb/pushdown/pushdown_optimizer.cpp);
 * - under WHERE, the filters the ungrouped path takes, classified per zone (skipped, from
 *   statistics, or decoded and filtered);
 * - a GROUP BY with more groups than that ({@link sortedGroups}) is still pushed where the zones are
 *   sorted by its key.
 */
export const groupedPushdown = Object.freeze({ setting: PUSHDOWN_SETTINGS.grouped });

/**
 * GROUP BY a key the files are sorted by (an order's lines by order key, events by user or session):
 * too many groups a zone for the reader's table of groups, and DuckDB's hash aggregate spends most
 * of its time on the groups themselves (TPC-H q18: 1.5M orders over 6M lines). Pushed where:
 * - there is one key, a plain column (or under DuckDB's compressed materialization) of integers of
 *   at most 8 bytes: integers, DATE, TIME, TIMESTAMP, DECIMAL of at most 18 digits; not BOOLEAN;
 * - every zone's key statistics are exact and hold no NULL, and each zone's min is at least the max
 *   of every zone before it (files in the scan's order) — so a key strictly between a zone's first
 *   and last key occurs in no other zone, and only zones' first and last groups are merged across
 *   zones;
 * - every aggregate is count(*), or count, sum, avg, min or max of an integer or DECIMAL (at most 18
 *   digits) column allowed by the rules above; sums are exact 128-bit integers, as DuckDB's, and
 *   averages are finished from them as DuckDB finishes its own (duckdb_semantics.cpp).
 * A zone whose rows turn out not to be in key order is grouped in a sorted copy of its rows. Filters
 * apply as for any grouped aggregate. `EXPLAIN` shows `Grouped As: sorted runs`. Lives in
 * native/duckdb/pushdown/sorted_grouped_scan.cpp and native/compute/sorted_groups.cpp.
 */
export const sortedGroups = Object.freeze({ setting: PUSHDOWN_SETTINGS.sortedGroups });

/**
 * The query's own ORDER BY over a pushed GROUP BY's keys is taken into the grouped scan, which
 * emits its groups sorted (DuckDB's sort of a few rows costs more than the pushed aggregate).
 * Exact by construction: every term up to the one that orders the last key must be a group key
 * (as DuckDB bound it, or under its compressed materialization, which preserves order), with the
 * direction and NULL order the binder resolved; the rows are sorted by DuckDB's own sort keys
 * (those `create_sort_key` builds). Left to DuckDB: sorts on aggregate results, expressions or
 * collations, LIMIT (Top-N), a sort below a join or a LIMIT, and any sort while
 * `preserve_insertion_order` is off. Lives in native/duckdb/pushdown/grouped_order.cpp.
 */
export const groupedOrder = Object.freeze({ setting: PUSHDOWN_SETTINGS.order });

/**
 * Filters vortex_scan takes out of DuckDB's plan and evaluates itself, with DuckDB's own
 * ExpressionExecutor (native/duckdb/scan/expression_filter.cpp): any WHERE conjunct DuckDB would
 * keep in a FILTER above the scan (LIKE '%x%', IN lists, ORs on one column or across columns,
 * lower(s) = 'k', CASE, COALESCE, arithmetic) — when it is deterministic, cannot raise an error,
 * and reads only the scan's columns (file columns, partition keys, the file name). "Cannot raise
 * an error" is DuckDB's own declaration per function (FunctionErrors), made stricter where DuckDB
 * under-reports (a cast is taken only when no value can make it fail: widening integers, numbers
 * to DOUBLE; substring only with constant offsets in range) and kinder where a constant proves it
 * (x % k and x // k for a constant k other than 0 and -1). A taken filter has left DuckDB's plan,
 * so every reader applies it exactly: the scan, and aggregates pushed above it, which are then
 * pushed as under any table filter. Zones are classified without reading rows by an equivalent
 * predicate on one column (IN lists, ORs of comparisons: statistics say none/all/some), by
 * evaluating the filter once where every column it reads is one value in the zone, and once per
 * dictionary entry of a dictionary-coded string column. Plain column-constant comparisons,
 * BETWEEN and IS [NOT] NULL stay DuckDB's (it makes table filters of them and estimates joins from
 * them). Filters that may raise an error stay DuckDB's, so errors are DuckDB's own.
 */
export const expressionPushdown = Object.freeze({ setting: PUSHDOWN_SETTINGS.expressions });

/**
 * GROUP BY keys that are a bucket function of one column (native/duckdb/pushdown/bucket_keys.cpp
 * and native/duckdb/scan/monotone_functions.cpp enforce this list): the grouped scan evaluates the
 * function with DuckDB's own executor on the column's values, so the key's type and value are
 * DuckDB's by construction, and groups on the results. All but the calendar fields are monotone
 * (non-decreasing) in their input, so a zone whose min and max fall in one bucket has that bucket
 * on every row and is answered from its statistics; a calendar field has one value within a unit
 * of time, so a zone whose min and max lie in one such unit is answered so too, a sorted zone's keys
 * come as runs of that unit, and a query whose zones span too many units is left to DuckDB. A
 * TIMESTAMP's truncation to a second, minute, hour or day, its day, its time-of-day fields, and a
 * TIMESTAMP's or DATE's year, quarter, month, day, day of the year and weekday are computed by a
 * kernel of native/compute (floor division and the proleptic Gregorian calendar, exact over the
 * whole range; infinities go to DuckDB's executor), the rest by DuckDB's executor. Functions of a
 * TIMESTAMP WITH TIME ZONE depend on the TimeZone setting, and local time runs backwards at a
 * daylight-saving or zone change (at midnight in some zones, so even the local date does): for
 * those the statistics shortcut is taken only while TimeZone is UTC; other zones are decoded and
 * evaluated row by row, which is exact in any time zone. Under `vortex_pushdown_expressions`.
 */
export const bucketFunctions = Object.freeze([
  { fn: 'date_trunc(part, x)', of: 'TIMESTAMP, DATE, TIMESTAMP WITH TIME ZONE', why: 'truncation to a unit never puts a later time before an earlier one' },
  { fn: 'time_bucket(width, x [, offset | origin | time zone])', of: 'TIMESTAMP, DATE, TIMESTAMP WITH TIME ZONE', why: 'the start of the width-long bucket holding x, counted from a fixed origin: non-decreasing in x' },
  { fn: 'CAST(x AS DATE)', of: 'TIMESTAMP (any unit), TIMESTAMP WITH TIME ZONE', why: "the day x falls on" },
  { fn: 'CAST(x AS TIMESTAMP)', of: 'DATE, TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP_NS', why: 'a change of unit (truncating nanoseconds): order-preserving' },
  { fn: 'year(x)', of: 'TIMESTAMP, DATE, TIMESTAMP WITH TIME ZONE', why: "the year x falls in" },
  { fn: 'x // k', of: 'integers, k a positive constant', why: 'division by a positive constant is non-decreasing (truncating or flooring alike)' },
  { fn: 'CAST(x AS integer type)', of: 'integers', why: 'the same value in another width (a value out of range raises the error DuckDB raises)' },
  { fn: 'month, quarter, day, dayofmonth, dayofyear, dayofweek, weekday, isodow, hour, minute, second, millisecond, decade, century, millennium (x)', of: 'TIMESTAMP, DATE (a column)', why: 'not monotone, but one value within its date_trunc unit (a decade, century or millennium taken per year)' },
]);

/** How the native kernels are asked to compute, and how their Vortex-semantics result is rewritten. */
export interface PushdownRule {
  fn: AggregateName;
  /** Stored column type as DuckDB names it; `*` for count_star. DECIMAL is split by width. */
  type: string;
  flag: PushdownFlag;
  /** Vortex kernel answering it. */
  kernel: 'count_rows' | 'count' | 'sum' | 'mean' | 'min' | 'max' | 'count_distinct' | 'approx_count_distinct';
  /** Kernel option: DuckDB counts and sums NaN like any value, so never skip them. */
  skipNans: false;
  /** Result over no values (empty or all-NULL): Vortex gives 0 (sum) or NaN (mean); DuckDB NULL. */
  onEmpty: 'null' | 'zero';
  /**
   * Result where an infinity occurs or the sum leaves the range of doubles: `'ieee'` as IEEE
   * addition (±inf, NaN for both), `'nan'` as DuckDB's Kahan summation, whose error term turns
   * NaN as soon as an infinity meets it. Float sums only.
   */
  onNonFinite?: 'ieee' | 'nan';
  /** Why this is exact, for people reading the policy. */
  why: string;
  /**
   * A condition the native side proves from zone statistics when it plans the query; without
   * it the aggregate is left to DuckDB. `sum-bound`: see {@link sumBoundHolds}.
   */
  requires?: 'sum-bound';
}

/**
 * The no-overflow proof for 128-bit sums (HUGEINT, DECIMAL wider than 18 digits), which keep no
 * sum in zone statistics and whose every addition DuckDB checks: no order of addition can leave
 * the accumulator when max(|min|, |max|) × non-NULL values ≤ 2^127 − 1, or ≤ 10^38 − 1 for
 * decimals (so the result is a valid DECIMAL(38, s)). Values are unscaled integers.
 */
export function sumBoundHolds(typeKeyOrName: string, min: bigint, max: bigint, nonNull: bigint): boolean {
  const limit = typeKey(typeKeyOrName) === DECIMAL_WIDE ? 10n ** 38n - 1n : 2n ** 127n - 1n;
  const abs = (v: bigint) => (v < 0n ? -v : v);
  const largest = abs(min) > abs(max) ? abs(min) : abs(max);
  return largest * nonNull <= limit;
}

export const INTEGER_TYPES = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'] as const;
export const WIDE_INTEGER_TYPES = ['HUGEINT', 'UHUGEINT'] as const;
export const DECIMAL_NARROW = 'DECIMAL(<=18)';
export const DECIMAL_WIDE = 'DECIMAL(>18)';
export const FLOAT_TYPES = ['FLOAT', 'DOUBLE'] as const;
export const STRING_TYPES = ['VARCHAR', 'BLOB'] as const;
export const TEMPORAL_TYPES = ['DATE', 'TIME', 'TIME_NS', 'TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE'] as const;
export const OTHER_TYPES = ['UUID', 'INTERVAL', 'TIME WITH TIME ZONE'] as const;
/**
 * Nested types and ENUM (format version 3): only `count` is pushed for them, from the NULL count
 * of the column's own stream (a NULL struct, list, map, array or union; an ENUM's codes). Fields
 * of a struct are pushed under the rules of their own type: their streams store a field NULL
 * wherever a struct above it is NULL, so their statistics are exactly those of `s.a`.
 */
export const NESTED_TYPES = ['STRUCT', 'LIST', 'MAP', 'ARRAY', 'UNION', 'ENUM'] as const;
/**
 * DuckDB 1.5's GEOMETRY (format version 7; DuckDB 1.4 reads it as its WKB BLOB): only `count` is
 * pushed. Its values are WKB bytes, but what a geometry's min, max or distinct count is belongs
 * to DuckDB's spatial semantics, not to the bytes.
 */
export const SPATIAL_TYPES = ['GEOMETRY'] as const;
/**
 * JSON and BIT (format version 8; older versions of this package wrote them as VARCHAR): only
 * `count` is pushed. Their bytes are stored as text and as a blob, but how DuckDB orders and
 * compares them is DuckDB's (a BIT's padding byte; JSON's own functions), not the bytes'.
 */
export const ANNOTATED_TYPES = ['JSON', 'BIT'] as const;

/** Every type a .vtx file stores, by the name rules use. */
export const STORED_TYPES: readonly string[] = [
  'BOOLEAN', ...INTEGER_TYPES, ...WIDE_INTEGER_TYPES, DECIMAL_NARROW, DECIMAL_WIDE, ...FLOAT_TYPES,
  ...STRING_TYPES, ...TEMPORAL_TYPES, ...OTHER_TYPES, ...NESTED_TYPES, ...SPATIAL_TYPES, ...ANNOTATED_TYPES,
];

const SUMMABLE = ['BOOLEAN', ...INTEGER_TYPES, DECIMAL_NARROW];
const AVERAGEABLE = [...INTEGER_TYPES, DECIMAL_NARROW];
/** 128-bit integers: no sum in zone statistics, and DuckDB checks every addition for overflow. */
const WIDE_SUMMABLE = ['HUGEINT', DECIMAL_WIDE];
/** Types whose equal values have equal bytes: their distinct values are counted bytewise. */
const DISTINCT_COUNTABLE = ['BOOLEAN', ...INTEGER_TYPES, ...WIDE_INTEGER_TYPES, DECIMAL_NARROW, DECIMAL_WIDE, ...STRING_TYPES, ...TEMPORAL_TYPES, 'UUID'];
/** Flat types: their zones keep sketches of DuckDB's hash. */
const SKETCHED = ['BOOLEAN', ...INTEGER_TYPES, ...WIDE_INTEGER_TYPES, DECIMAL_NARROW, DECIMAL_WIDE, ...FLOAT_TYPES, ...STRING_TYPES, ...TEMPORAL_TYPES, ...OTHER_TYPES];
const ORDERED = ['BOOLEAN', ...INTEGER_TYPES, ...WIDE_INTEGER_TYPES, DECIMAL_NARROW, DECIMAL_WIDE, ...STRING_TYPES, ...TEMPORAL_TYPES];

/**
 * What a pushed float sum is: the exact sum of the values, rounded once to the nearest double
 * (ties to even). That is the same for any zone size, file split, thread count or order of
 * merging. DuckDB's own sum(DOUBLE) adds in whatever order its threads run and rounds at every
 * step, so it can differ in the last bits, or more under cancellation (1e16 + 1 - 1e16); it
 * equals the pushed sum whenever its own additions are exact, e.g. integer-valued doubles whose
 * partial sums stay below 2^53.
 */
export const FLOAT_SUM_PROMISE = 'the correctly rounded exact sum of the finite values (zone statistics keep it exactly; decoded rows are added exactly; rounded once at the end), the same for any zone size, file split, thread count or merge order; it equals DuckDB\'s own sum wherever DuckDB\'s additions are exact.';

function rules(fns: AggregateName[], types: readonly string[], rest: Omit<PushdownRule, 'fn' | 'type'>): PushdownRule[] {
  return fns.flatMap((fn) => types.map((type) => ({ fn, type, ...rest })));
}

/** The allow-list. */
export const pushdownRules: readonly PushdownRule[] = Object.freeze([
  ...rules(['count_star'], ['*'], {
    flag: 'count', kernel: 'count_rows', skipNans: false, onEmpty: 'zero',
    why: 'row count is exact zone metadata',
  }),
  ...rules(['count'], STORED_TYPES, {
    flag: 'count', kernel: 'count', skipNans: false, onEmpty: 'zero',
    why: 'non-null count per zone; NaN is a value to DuckDB, so NaN is counted; nested types: the NULL count of their own stream',
  }),
  ...rules(['sum', 'sum_no_overflow'], SUMMABLE, {
    flag: 'sum', kernel: 'sum', skipNans: false, onEmpty: 'null',
    why: 'exact int128 zone sums (no overflow below 2^63 rows); all-NULL is NULL, not 0',
  }),
  ...rules(['sum', 'sum_no_overflow'], FLOAT_TYPES, {
    flag: 'sum', kernel: 'sum', skipNans: false, onEmpty: 'null', onNonFinite: 'ieee',
    why: FLOAT_SUM_PROMISE + ' NaN if any NaN or both infinities, else the infinity; all-NULL is NULL, not 0. Files written before format version 4 (rounded zone sums) are not pushed',
  }),
  ...rules(['fsum', 'kahan_sum', 'sumkahan'], FLOAT_TYPES, {
    flag: 'sum', kernel: 'sum', skipNans: false, onEmpty: 'null', onNonFinite: 'nan',
    why: FLOAT_SUM_PROMISE + " DuckDB's Kahan sum is closer to it than sum's, and equal to it more often, but still order-dependent. NaN if any NaN, any infinity, or a sum beyond the doubles (DuckDB's error term turns NaN there); all-NULL is NULL",
  }),
  ...rules(['sum'], WIDE_SUMMABLE, {
    flag: 'sum', kernel: 'sum', skipNans: false, onEmpty: 'null', requires: 'sum-bound',
    why: 'pushed only with a proof from zone statistics that no order of addition can overflow DuckDB\'s 128-bit accumulator: max(|min|, |max|) × non-NULL rows < 2^127 (DECIMAL: ≤ 10^38 − 1, a valid DECIMAL(38,s)); the exact sum of the decoded values is then DuckDB\'s answer, and without the proof DuckDB sums (and raises its own overflow error)',
  }),
  ...rules(['avg'], WIDE_SUMMABLE, {
    flag: 'avg', kernel: 'mean', skipNans: false, onEmpty: 'null', requires: 'sum-bound',
    why: "the exact 128-bit sum under the same no-overflow proof as sum, finalized as DuckDB's avg does (long double division); all-NULL is NULL",
  }),
  ...rules(['avg'], AVERAGEABLE, {
    flag: 'avg', kernel: 'mean', skipNans: false, onEmpty: 'null',
    why: "sum and count from zone statistics, finalized as DuckDB's avg does per bound type; all-NULL is NULL, not NaN",
  }),
  ...rules(['avg'], FLOAT_TYPES, {
    flag: 'avg', kernel: 'mean', skipNans: false, onEmpty: 'null', onNonFinite: 'ieee',
    why: 'the exact sum of the values divided by their count, rounded once to the nearest double (DuckDB divides its own rounded, order-dependent sum); NaN if any NaN or both infinities, else the infinity; all-NULL is NULL, not NaN',
  }),
  ...rules(['favg'], FLOAT_TYPES, {
    flag: 'avg', kernel: 'mean', skipNans: false, onEmpty: 'null', onNonFinite: 'nan',
    why: "the exact sum divided by the count, rounded once; NaN if any NaN, any infinity, or a sum beyond the doubles, as DuckDB's Kahan average; all-NULL is NULL",
  }),
  ...rules(['count_distinct'], DISTINCT_COUNTABLE, {
    flag: 'distinct', kernel: 'count_distinct', skipNans: false, onEmpty: 'zero',
    why: "the union of the zones' distinct values: those a zone keeps in its statistics (at most 32, checked against its rows once per version of the file before they are used), and the decoded values of zones that keep none (at most 8M rows of those, else DuckDB counts); bytewise, as DuckDB compares these types (a collation is not applied to count(DISTINCT), by DuckDB either); NULL never counted; all-NULL is 0",
  }),
  ...rules(['approx_count_distinct'], SKETCHED, {
    flag: 'approx_distinct', kernel: 'approx_count_distinct', skipNans: false, onEmpty: 'zero',
    why: "the zones' HyperLogLog registers of DuckDB's own hash merged by max — exactly the registers DuckDB would build from these rows, in any order — finished by DuckDB's own HyperLogLog::Count(): DuckDB's answer, not merely close. Only where the file's fingerprint of the hash equals the running DuckDB's, and each zone's registers agree with its rows (checked once per version of the file); not per group",
  }),
  ...rules(['min'], ORDERED, {
    flag: 'min', kernel: 'min', skipNans: false, onEmpty: 'null',
    why: 'exact per-zone min (strings: binary order, decoded where the statistic was truncated); never floats',
  }),
  ...rules(['max'], ORDERED, {
    flag: 'max', kernel: 'max', skipNans: false, onEmpty: 'null',
    why: 'exact per-zone max (strings: binary order, decoded where the statistic was truncated); never floats',
  }),
]);

export interface PushdownDecision {
  push: boolean;
  reason: string;
  rule?: PushdownRule;
  /** How the reader's result is rewritten into DuckDB's when pushed. */
  rewrite?: { onEmpty: 'null' | 'zero'; skipNans: boolean };
}

/** Maps a DuckDB type string (e.g. `DECIMAL(10,2)`, `INTEGER`) to the key rules use. */
export function typeKey(duckdbType: string): string {
  const t = duckdbType.trim().toUpperCase();
  const dec = /^(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*\d+\s*)?\)$/.exec(t);
  if (dec) return Number(dec[1]) <= 18 ? DECIMAL_NARROW : DECIMAL_WIDE;
  if (t === 'DECIMAL' || t === 'NUMERIC') return DECIMAL_NARROW; // DuckDB's default DECIMAL(18,3)
  if (/^GEOMETRY\s*(\(|$)/.test(t)) return 'GEOMETRY'; // GEOMETRY('OGC:CRS84'): the CRS is no matter to the rules
  const nested = /^(STRUCT|MAP|UNION|ENUM)\s*\(/.exec(t);
  if (nested) return nested[1];
  if (/\[\d+\]$/.test(t)) return 'ARRAY';
  if (/\[\]$/.test(t)) return 'LIST';
  const aliases: Record<string, string> = {
    BOOL: 'BOOLEAN', INT1: 'TINYINT', INT2: 'SMALLINT', INT4: 'INTEGER', INT: 'INTEGER', INT8: 'BIGINT', LONG: 'BIGINT',
    INT128: 'HUGEINT', FLOAT4: 'FLOAT', REAL: 'FLOAT', FLOAT8: 'DOUBLE', STRING: 'VARCHAR', TEXT: 'VARCHAR',
    BYTEA: 'BLOB', TIMESTAMPTZ: 'TIMESTAMP WITH TIME ZONE', DATETIME: 'TIMESTAMP', TIMETZ: 'TIME WITH TIME ZONE',
  };
  return aliases[t] ?? t;
}

/** Decides whether `fn(column of duckdbType)` may be answered by the reader under `flags`. */
export function decidePushdown(fn: string, duckdbType: string, flags: PushdownFlags = {}): PushdownDecision {
  const name = fn.toLowerCase() as AggregateName;
  const key = name === 'count_star' ? '*' : typeKey(duckdbType);
  if ((name === 'min' || name === 'max') && (FLOAT_TYPES as readonly string[]).includes(key)) {
    return { push: false, reason: `${name} over ${key} is never pushed: DuckDB orders NaN above every number and zone statistics exclude NaN` };
  }
  const rule = pushdownRules.find((r) => r.fn === name && r.type === key);
  if (!rule) return { push: false, reason: `${fn}(${key}) is not on the allow-list` };
  if (flags.enabled === false) return { push: false, reason: `${PUSHDOWN_SETTINGS.enabled} is off`, rule };
  const flag = AGGREGATE_FLAGS[name];
  if (flags[flag] === false) return { push: false, reason: `${PUSHDOWN_SETTINGS[flag]} is off`, rule };
  return { push: true, reason: rule.why, rule, rewrite: { onEmpty: rule.onEmpty, skipNans: rule.skipNans } };
}

/**
 * The same decision for an aggregate computed per group of a GROUP BY on plain key columns
 * (see {@link groupedPushdown}): sums and averages of 128-bit integers are left to DuckDB.
 */
export function decideGroupedPushdown(fn: string, duckdbType: string, flags: PushdownFlags = {}): PushdownDecision {
  const d = decidePushdown(fn, duckdbType, flags);
  if (!d.push) return d;
  if (flags.grouped === false) return { push: false, reason: `${PUSHDOWN_SETTINGS.grouped} is off`, rule: d.rule };
  if (d.rule?.requires === 'sum-bound') {
    return { push: false, reason: `${fn} over 128-bit integers is not pushed per group: its no-overflow proof is made for the whole column`, rule: d.rule };
  }
  if (d.rule?.fn === 'approx_count_distinct') {
    return { push: false, reason: 'approx_count_distinct is not pushed per group: zone sketches are merged for the whole column', rule: d.rule };
  }
  return d;
}

/**
 * A rule by name, as `registerVortex({ rules })` accepts it beside rule objects:
 * - a family, the `vortex_pushdown_<flag>` switch it belongs to: `'count'` (count and count_star),
 *   `'sum'` (sum, sum_no_overflow, fsum, kahan_sum, sumkahan), `'avg'` (avg, favg), `'min'`, `'max'`;
 * - an aggregate as DuckDB binds it that is not a family name: `'count_star'`, `'sum_no_overflow'`,
 *   `'fsum'`, `'kahan_sum'`, `'sumkahan'`, `'favg'`;
 * - one rule, `'fn(TYPE)'`, e.g. `'sum(BIGINT)'`, `'count_star(*)'` (TYPE as `typeKey` reads it).
 */
export type PushdownRuleName = PushdownFlag | AggregateName | `${AggregateName}(${string})`;

const FLAGS: readonly PushdownFlag[] = ['count', 'sum', 'avg', 'min', 'max'];

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v);
  return `${typeof v} ${String(v)}`;
}

/**
 * The allow-list entries that `rules` (names and rule objects, mixed) select, in allow-list
 * order, without duplicates. Throws a TypeError naming the element (`${where}[i]`) and what is
 * wrong with it; nothing outside `pushdownRules` is ever returned.
 */
export function resolveRules(rules: unknown, where = 'rules'): PushdownRule[] {
  if (!Array.isArray(rules)) throw new TypeError(`duckdb-vortex: ${where} must be an array of rule names or rule objects, got ${describeValue(rules)}`);
  const chosen = new Set<PushdownRule>();
  rules.forEach((r: unknown, i: number) => {
    const at = `${where}[${i}]`;
    if (typeof r === 'string') {
      const name = r.trim();
      const one = /^([a-z_]+)\s*\((.*)\)$/i.exec(name);
      let found: PushdownRule[];
      if (one) {
        const fn = one[1].toLowerCase();
        const type = fn === 'count_star' ? '*' : typeKey(one[2]);
        found = pushdownRules.filter((a) => a.fn === fn && a.type === type);
        if (!found.length) throw new TypeError(`duckdb-vortex: ${at}: rule ${fn}(${type}) is not on the allow-list (see pushdownRules)`);
      } else {
        const lower = name.toLowerCase();
        found = (FLAGS as readonly string[]).includes(lower)
          ? pushdownRules.filter((a) => a.flag === lower)
          : pushdownRules.filter((a) => a.fn === lower);
        if (!found.length) {
          const fns = [...new Set(pushdownRules.map((a) => a.fn))].filter((f) => !(FLAGS as readonly string[]).includes(f));
          throw new TypeError(
            `duckdb-vortex: ${at}: unknown rule name ${JSON.stringify(r)} (expected a family: ${FLAGS.join(', ')}; ` +
              `an aggregate: ${fns.join(', ')}; or one rule as 'fn(TYPE)', e.g. 'sum(BIGINT)')`,
          );
        }
      }
      found.forEach((a) => chosen.add(a));
      return;
    }
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      throw new TypeError(`duckdb-vortex: ${at} must be a rule name (e.g. 'sum') or a rule object of pushdownRules, got ${describeValue(r)}`);
    }
    const { fn, type } = r as { fn?: unknown; type?: unknown };
    if (typeof fn !== 'string' || typeof type !== 'string') {
      throw new TypeError(`duckdb-vortex: ${at}: a rule object needs string fields fn and type (as in pushdownRules), got fn ${describeValue(fn)}, type ${describeValue(type)}`);
    }
    const allowed = pushdownRules.find((a) => a.fn === fn && a.type === type);
    if (!allowed) throw new TypeError(`duckdb-vortex: ${at}: rule ${fn}(${type}) is not on the allow-list and cannot be enabled`);
    chosen.add(allowed);
  });
  return pushdownRules.filter((a) => chosen.has(a));
}

/** The compact table handed to the native side. */
export interface CompiledRule {
  fn: string;
  type: string;
  setting: string;
  skipNans: boolean;
  emptyIsNull: boolean;
  /** Float sums: NaN wherever an infinity occurs or the sum overflows (Kahan summation). */
  nonFiniteIsNan: boolean;
}

/**
 * Compiles rules for the native side. A custom list may only narrow the allow-list: a rule
 * that is not in `pushdownRules` is rejected, never passed on.
 */
export function compileRules(selected: readonly PushdownRule[] = pushdownRules): CompiledRule[] {
  return selected.map((r) => {
    const allowed = pushdownRules.find((a) => a.fn === r.fn && a.type === r.type);
    if (!allowed) throw new Error(`duckdb-vortex: rule ${r.fn}(${r.type}) is not on the allow-list and cannot be enabled`);
    return {
      fn: allowed.fn,
      type: allowed.type,
      setting: PUSHDOWN_SETTINGS[allowed.flag],
      skipNans: allowed.skipNans,
      emptyIsNull: allowed.onEmpty === 'null',
      nonFiniteIsNan: allowed.onNonFinite === 'nan',
    };
  });
}
