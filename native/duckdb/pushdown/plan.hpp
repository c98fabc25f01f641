// The pushed plan's own types, and the one door from pushdown/ into the scan it rewrites: the
// scan's bind data (files, footers, schema), its plan guard (the footers a plan was made from) and
// its filters. Everything else the two share lives in expr/.
#pragma once
#include "../../compute/predicate.hpp"
#include "../../format/file/metadata.hpp"
#include "../scan/plan_guard.hpp"
#include "../scan/scan_bind_data.hpp"
#include "../scan/scan_filters.hpp"
#include "../scan/vortex_scan.hpp"
#include "aggregate_catalog.hpp"
#include "duckdb.hpp"

#include <functional>

namespace vortex {

struct PushedAggregate {
	AggregateKind kind;
	duckdb::idx_t field = 0;          //! scan column (unused for count_star)
	duckdb::LogicalType bound_type;   //! argument type as DuckDB bound the aggregate (after lossless casts)
	duckdb::LogicalType result_type;  //! the aggregate's return type
	bool skip_nans = false;
	bool empty_is_null = true;
	bool non_finite_is_nan = false;   //! Kahan sums: NaN where an infinity occurs or the sum overflows
	std::string display;              //! e.g. "sum(x)" for EXPLAIN
	bool operator==(const PushedAggregate &o) const {
		return kind == o.kind && field == o.field && bound_type == o.bound_type && result_type == o.result_type &&
		       skip_nans == o.skip_nans && empty_is_null == o.empty_is_null && non_finite_is_nan == o.non_finite_is_nan;
	}
};

//! A filter the pushed aggregate applies itself: zones are classified by it, straddling zones
//! decoded and filtered row by row.
struct PushedFilter {
	duckdb::idx_t field;
	vtx::compute::Predicate predicate;
	std::string display; //! e.g. "x>=5" for EXPLAIN
	bool operator==(const PushedFilter &o) const {
		return field == o.field && predicate == o.predicate;
	}
};

//! A field of a STRUCT column (at any depth) that an aggregate reads: its stream stores the
//! field NULL wherever a struct above it is NULL, so its statistics are those of `s.a` itself.
struct StructLeaf {
	duckdb::idx_t field;          //! the scan column holding the struct
	std::vector<size_t> route;    //! child indexes from that column down to the leaf
	vtx::ColumnType type;
	duckdb::LogicalType logical;
	bool operator==(const StructLeaf &o) const {
		return field == o.field && route == o.route && type == o.type && logical == o.logical;
	}
};

//! How to reach the file columns a zone's filters read (struct leaves, for the ungrouped path).
struct FilterColumns {
	std::function<const vtx::ColumnType &(duckdb::idx_t field)> type;
	std::function<const vtx::ZoneStats &(const vtx::ZoneMeta &zone, duckdb::idx_t field)> stats;
};

} // namespace vortex
