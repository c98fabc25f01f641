// DuckDB's table filters as the compute layer's predicates (zone classification and row
// evaluation happen there), and constants as the raw bytes of .vtx storage: shared by vortex_scan
// and the pushed aggregates.
#pragma once
#include "../../compute/predicate.hpp"
#include "duckdb/planner/table_filter.hpp"

namespace vortex {

//! A column's value as raw bytes in the .vtx storage of `type`; false if the value is not of
//! exactly that type or the type has no order.
bool ValueToRaw(const duckdb::LogicalType &type, const duckdb::Value &value, std::string &raw);

//! A comparison's operator as a predicate's; false for others (DISTINCT FROM holds on NULL).
bool CompareOpOf(duckdb::ExpressionType type, vtx::compute::CompareOp &op);

enum class FilterUse : uint8_t {
	//! The scan: optional filters are applied when they can be (they are implied by filters
	//! DuckDB keeps above), and dynamic filters with their current value.
	SCAN,
	//! A pushed aggregate: only filters that must hold exactly and never change.
	EXACT,
	//! The scan's rows within a zone that its statistics do not settle: as SCAN, but optional
	//! filters are left out. They are implied by operators DuckDB keeps above (a join's key
	//! range, a Top-N boundary), and DuckDB's own table scans use them on zone statistics only:
	//! evaluated row by row they cost a pass and a slice of every vector, for a join range that
	//! often keeps nearly every row.
	ROWS,
};

//! Translates `filter` over a column of `type`. Returns false when it cannot be evaluated
//! exactly as DuckDB would; `dynamic` is set when its value may change during execution.
bool TranslateFilter(const duckdb::TableFilter &filter, const duckdb::LogicalType &type, FilterUse use,
                     vtx::compute::Predicate &out, bool &dynamic);

//! For a filter holding a dynamic comparison (Top-N's boundary): whether values above it pass
//! (`x > boundary`, descending order) or below it (ascending). False when there is none.
bool DynamicDirection(const duckdb::TableFilter &filter, bool &descending);

//! Whether `value` (a partition value, a file name) satisfies `filter`, as DuckDB evaluates it.
bool ConstantMatches(duckdb::ClientContext &context, const duckdb::TableFilter &filter, const duckdb::Value &value);

} // namespace vortex
