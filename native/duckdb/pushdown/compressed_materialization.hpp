// DuckDB's compressed materialization: below a GROUP BY or ORDER BY it narrows integer and
// short string keys to smaller integers (__internal_compress_*) and widens them back above
// (__internal_decompress_*). Both maps are one-to-one and keep the order of the values: DuckDB's
// own sort and grouping work on the narrowed values.
#pragma once
#include "duckdb.hpp"
#include "duckdb/planner/expression.hpp"

namespace vortex {

bool IsCompressFunction(const duckdb::Expression &e);
bool IsDecompressFunction(const duckdb::Expression &e);

} // namespace vortex
