// Zone skipping. Filters stay in the plan (DuckDB applies them to every row), and the scan
// uses the ones it understands only to skip zones whose statistics prove no row can match,
// so skipping can never change an answer.
#pragma once
#include "scan_bind_data.hpp"

namespace vortex {

//! Reads the comparisons it can use out of a filter expression over `get`.
void CollectZonePredicates(const duckdb::LogicalGet &get, const duckdb::Expression &expr, ScanBindData &bind);

//! True when the zone's statistics prove that no row satisfies the predicate.
bool ZoneExcluded(const ZonePredicate &p, const vtx::ZoneStats &stats, const duckdb::LogicalType &type);

} // namespace vortex
