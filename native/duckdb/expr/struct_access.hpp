// `s['a']` and `r[1]` in a filter over vortex_scan, as the struct_extract / struct_extract_at
// DuckDB makes table filters of.
//
// DuckDB binds a subscript of a STRUCT to `array_extract`, and its filter pushdown recognises
// only `struct_extract` and `struct_extract_at` (s.a, struct_extract_at(r, 1)): a filter on
// `s['a']` stayed in a FILTER above the scan, so no zone was skipped and no aggregate under it
// was pushed, where the same filter written `s.a` was both. Rewritten before DuckDB builds its
// table filters (pushdown_complex_filter runs first), the two spellings plan alike.
#pragma once
#include "duckdb/main/client_context.hpp"
#include "duckdb/planner/expression.hpp"

namespace vortex {

//! Replaces, anywhere in `e`, a subscript of a STRUCT by a constant key or index with the
//! equivalent struct_extract / struct_extract_at (same value, same type); leaves the rest.
void StructSubscriptsAsExtracts(duckdb::ClientContext &context, duckdb::unique_ptr<duckdb::Expression> &e);

} // namespace vortex
