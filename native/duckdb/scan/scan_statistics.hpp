// What vortex_scan tells DuckDB's planner: the row count, and exact per-column bounds over all
// files (checked again at execution by plan_guard).
#pragma once
#include "scan_bind_data.hpp"

namespace vortex {

duckdb::unique_ptr<duckdb::NodeStatistics> ScanCardinality(duckdb::ClientContext &context,
                                                           const duckdb::FunctionData *bind_data);
duckdb::unique_ptr<duckdb::BaseStatistics> ScanStatistics(duckdb::ClientContext &context,
                                                          const duckdb::FunctionData *bind_data,
                                                          duckdb::column_t column_index);

} // namespace vortex
