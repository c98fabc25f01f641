// Which vortex COPYs skip DuckDB's batch collections (ordered_zone_encoder.hpp).
//
// An ordered COPY normally runs as DuckDB's batch copy: every thread reads, and each batch is
// collected whole before the writer sees it. Fed by one thread instead, the copy saves the
// collections, but the plan that feeds it runs on that one thread only. That is a gain where
// feeding is cheap next to encoding — a table, a .vtx or Parquet file read as it is, or sorted
// rows — and there are few threads to share the encoding (up to 4; measured in bench/RESULTS.md,
// "COPY fed by one thread"). Elsewhere (joins, expressions, CSV parsing, many cores) DuckDB's
// own plan is kept.
#pragma once
#include "../duckdb_compat.hpp"

namespace vortex {

duckdb::OptimizerExtension GetCopyExecutionOptimizer();

} // namespace vortex
