#pragma once
#include "duckdb.hpp"

#include <string>

namespace vortex {

//! The exact float aggregates that stand in for DuckDB's own over .vtx columns
//! (pushdown/exact_float_sums.hpp): vortex_exact_sum, vortex_exact_fsum, vortex_exact_avg and
//! vortex_exact_favg, of DOUBLE. Each is the correctly rounded exact sum (or mean) of its finite
//! values, the same in every order, with DuckDB's and the pushed plans' special values: NULL over
//! no values; NaN for any NaN or both infinities, else the infinity (the Kahan forms fsum and
//! favg: NaN for any infinity or a sum beyond the doubles).
enum class ExactFloatKind : uint8_t { SUM, FSUM, AVG, FAVG };

duckdb::AggregateFunction GetExactFloatFunction(ExactFloatKind kind);
//! All four, to register in the catalog (plans that name them are deserialized from it).
std::vector<duckdb::AggregateFunction> GetExactFloatFunctions();
//! The exact stand-in for DuckDB's aggregate `name` (sum, sum_no_overflow, fsum, kahan_sum,
//! sumkahan, avg, favg), or false where there is none.
bool ExactFloatKindOf(const std::string &name, ExactFloatKind &kind);

} // namespace vortex
