// DuckDB's finalization (the same in every 1.4 and 1.5 release) of sum/avg/min/max/count, reproduced bit for bit so that a
// pushed aggregate returns exactly what DuckDB's own aggregate would (see
// extension/core_functions/aggregate/algebraic/avg.cpp and distributive/sum.cpp).
#pragma once
#include "../../compute/kernels.hpp"
#include "duckdb.hpp"

namespace vortex {

//! avg over integers or decimals, given DuckDB's bound argument type.
double DuckDBIntegerAverage(vtx::int128 sum, uint64_t count, const duckdb::LogicalType &bound_type);
//! An exact integer sum into row `row` of a vector of the aggregate's result type (HUGEINT,
//! DECIMAL(38,s), ...), raising DuckDB's error where it does not fit.
void StoreIntegerSum(duckdb::Vector &out, duckdb::idx_t row, vtx::int128 sum);
//! Whether StoreIntegerSum can write this result type.
bool SupportsIntegerSumResult(const duckdb::LogicalType &result_type);
//! A 128-bit value into row `row` of a flat vector of an integer physical type (unchecked: the
//! value is known to fit).
void StoreInteger(duckdb::Vector &out, duckdb::idx_t row, vtx::int128 v);
//! A double into row `row` of a flat DOUBLE vector.
void StoreDouble(duckdb::Vector &out, duckdb::idx_t row, double v);
//! DuckDB's hugeint -> floating conversion (exact formula, including its rounding).
long double HugeintToLongDouble(vtx::int128 v);

} // namespace vortex
