// Float sums that mean the same in every plan over .vtx (issue 55): DuckDB's sum(DOUBLE) adds in
// whatever order its threads run, so a query that is not pushed (a float min/max beside the sum,
// a LIMIT, a join) gave different last digits from the pushed one, and from run to run. This
// rule follows every FLOAT or DOUBLE column of a vortex_scan up the plan (through projections of
// the plain column or its cast to DOUBLE, filters, joins, limits and GROUP BY keys), and where
// DuckDB's sum, fsum/kahan_sum/sumkahan, avg or favg of DOUBLE takes one of them, in an
// aggregate or a window, it puts the exact aggregate of functions/exact_float_sum_function.hpp
// in its place: the correctly rounded exact sum, which is what a pushed plan returns.
// Not followed: values computed from the column (sum(x * 2)), set operations, materialized CTEs.
#pragma once
#include "duckdb.hpp"

namespace vortex {

//! Under the setting vortex_exact_float_sums (default true).
void UseExactFloatSums(duckdb::ClientContext &context, duckdb::unique_ptr<duckdb::LogicalOperator> &plan);

} // namespace vortex
