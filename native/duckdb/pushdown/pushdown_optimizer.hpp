// The optimizer rule: AGGREGATE (no GROUP BY) <- [PROJECTION of plain columns]* <- vortex_scan
// becomes a single vortex_scan that returns the finished aggregates — when, and only when,
// every aggregate is on the allow-list, enabled, and nothing between it and the scan would
// be left unapplied. Anything else is left exactly as DuckDB planned it.
#pragma once
#include "rules_table.hpp"

namespace vortex {

duckdb::OptimizerExtension GetPushdownOptimizer(duckdb::shared_ptr<RulesTable> rules);

} // namespace vortex
