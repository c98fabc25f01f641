// The filters a pushed aggregate (ungrouped or grouped) applies itself, zone by zone: predicates
// on file columns (DuckDB's exact table filters and IS [NOT] NULL, translated for the compute
// layer) and the expression filters vortex_scan took out of the plan. A zone is classified
// without reading rows where its statistics (or the one value each input holds) decide every
// filter; otherwise it straddles them, and its rows are decoded and filtered into a mask.
#pragma once
#include "../expr/expression_filter.hpp"
#include "plan.hpp"
#include "pushed_aggregate.hpp"

#include <functional>

namespace vortex {

//! What became of a pushed aggregate's zones, for EXPLAIN ANALYZE.
struct ZoneCounters {
	duckdb::idx_t from_stats = 0; //! answered from zone statistics
	duckdb::idx_t skipped = 0;    //! no row matches
	duckdb::idx_t decoded = 0;    //! decoded (straddling the filters, or statistics that cannot answer)

	void Show(duckdb::InsertionOrderPreservingMap<duckdb::string> &result) const;
};

//! One thread's view of the filters (expression filters need an executor per thread).
class ZoneFilter {
public:
	ZoneFilter(duckdb::ClientContext &context, const std::vector<PushedFilter> &predicates,
	           const std::vector<ExpressionFilter> &expressions, const std::vector<vtx::Field> &fields,
	           const duckdb::vector<duckdb::LogicalType> &types, const FileColumns &file_columns,
	           const std::vector<ScanFile> &files, FilterColumns columns);

	//! Number of per-filter matches Classify() fills: predicates, then expression filters.
	size_t Count() const {
		return predicates.size() + expressions.size();
	}
	//! ALL, NONE, or SOME with each filter's own match in `matches` (ALL ones need no evaluation).
	vtx::compute::ZoneMatch Classify(const vtx::ZoneMeta &zone, duckdb::idx_t file, std::vector<vtx::compute::ZoneMatch> &matches);
	//! Appends the fields Filter asks `column` for, given the same `matches` (a field may repeat).
	void Fields(const std::vector<vtx::compute::ZoneMatch> &matches, std::vector<duckdb::idx_t> &out) const;
	//! Whether a file column is read only by predicates, which take its values left packed
	//! (DecodedColumn::deferred: runs and dictionary entries evaluated once each), no expression
	//! filter reading it as values.
	bool OnlyPredicatesRead(duckdb::idx_t field) const;
	//! Evaluates the filters a zone straddles on its rows (`column` decodes a file column of the
	//! zone, whole) into `mask`, begun here: NONE where no row passes, ALL where every row does
	//! (the zone may then be answered as a whole), SOME otherwise.
	vtx::compute::ZoneMatch Filter(const vtx::ZoneMeta &zone, duckdb::idx_t file,
	                               const std::vector<vtx::compute::ZoneMatch> &matches,
	                               const std::function<const vtx::DecodedColumn &(duckdb::idx_t field)> &column,
	                               vtx::compute::ZoneMask &mask);

private:
	const std::vector<PushedFilter> &predicates;
	const std::vector<ExpressionFilter> &expressions;
	const std::vector<vtx::Field> &fields;
	const duckdb::vector<duckdb::LogicalType> &types;
	const FileColumns &file_columns;
	const std::vector<ScanFile> &files;
	FilterColumns columns;
	ExpressionFilterEvaluator evaluator;
};

} // namespace vortex
