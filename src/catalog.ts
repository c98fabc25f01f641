/**
 * The TypeScript side of the extension points' tables. The native tables are the source
 * (native/duckdb/settings.hpp, native/duckdb/pushdown/aggregate_catalog.cpp); TypeScript needs the
 * names at compile time for its types, so they are mirrored here, once, and test/catalog.test.ts
 * checks this file against the addon's own rows.
 */

/** The switches of the TypeScript API (`registerVortex({ pushdown })`, `setPushdown`) and the SQL setting behind each. */
export const PUSHDOWN_SETTINGS = Object.freeze({
  enabled: 'vortex_pushdown',
  count: 'vortex_pushdown_count',
  sum: 'vortex_pushdown_sum',
  avg: 'vortex_pushdown_avg',
  min: 'vortex_pushdown_min',
  max: 'vortex_pushdown_max',
  distinct: 'vortex_pushdown_distinct',
  approx_distinct: 'vortex_pushdown_approx_distinct',
  grouped: 'vortex_pushdown_grouped',
  order: 'vortex_pushdown_order',
  expressions: 'vortex_pushdown_expressions',
  sortedGroups: 'vortex_pushdown_sorted_groups',
  costBased: 'vortex_pushdown_cost_based',
} as const);

export type PushdownSettingKey = keyof typeof PUSHDOWN_SETTINGS;

/**
 * Aggregates as DuckDB binds them (its optimizers may substitute `count_star` for `count(x)` and
 * `sum_no_overflow` for `sum`; `count_distinct` is count(DISTINCT x)), and the per-function switch
 * (`vortex_pushdown_<flag>`) each belongs to.
 */
export const AGGREGATE_FLAGS = Object.freeze({
  count_star: 'count',
  count: 'count',
  sum: 'sum',
  sum_no_overflow: 'sum',
  fsum: 'sum',
  kahan_sum: 'sum',
  sumkahan: 'sum',
  avg: 'avg',
  favg: 'avg',
  min: 'min',
  max: 'max',
  count_distinct: 'distinct',
  approx_count_distinct: 'approx_distinct',
} as const);
