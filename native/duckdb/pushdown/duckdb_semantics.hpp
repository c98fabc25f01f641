// DuckDB's finalization (the same in every 1.4 and 1.5 release) of sum/avg/min/max/count, reproduced bit for bit so that a
// pushed aggregate returns exactly what DuckDB's own aggregate would (see
// extension/core_functions/aggregate/algebraic/avg.cpp and distributive/sum.cpp).
#pragma once
#include "../../compute/kernels.hpp"
#include "duckdb.hpp"

namespace vortex {

//! avg over integers or decimals, given DuckDB's bound argument type.
double DuckDBIntegerAverage(vtx::int128 sum, uint64_t count, const duckdb::LogicalType &bound_type);
//! An exact integer sum as a value of the aggregate's result type (HUGEINT, DECIMAL(38,s), ...).
duckdb::Value IntegerSumValue(vtx::int128 sum, const duckdb::LogicalType &result_type);
//! Whether IntegerSumValue can produce this result type.
bool SupportsIntegerSumResult(const duckdb::LogicalType &result_type);
//! DuckDB's hugeint -> floating conversion (exact formula, including its rounding).
long double HugeintToLongDouble(vtx::int128 v);

} // namespace vortex
