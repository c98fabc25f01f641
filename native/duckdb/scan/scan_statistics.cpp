#include "scan_statistics.hpp"

#include "plan_guard.hpp"
#include "../type_mapping.hpp"

namespace vortex {

using namespace duckdb;

//! DuckDB's own guess for a filter it cannot estimate (its default filter selectivity): applied
//! per filter the scan took out of the plan, so that the join order sees the filter still.
constexpr double kTakenFilterSelectivity = 0.2;

unique_ptr<NodeStatistics> ScanCardinality(ClientContext &, const FunctionData *bind_data) {
	auto &bind = bind_data->Cast<ScanBindData>();
	double estimate = static_cast<double>(bind.total_rows);
	for (size_t i = 0; i < bind.expression_filters.size(); i++) {
		estimate *= kTakenFilterSelectivity;
	}
	const auto rows = static_cast<idx_t>(estimate);
	return make_uniq<NodeStatistics>(bind.expression_filters.empty() ? bind.total_rows : MaxValue<idx_t>(rows, 1),
	                                 bind.total_rows);
}

// Exact bounds over all files: lets DuckDB prove, e.g., that a sum cannot overflow.
unique_ptr<BaseStatistics> ScanStatistics(ClientContext &, const FunctionData *bind_data, column_t column_index) {
	auto &bind = bind_data->Cast<ScanBindData>();
	if (column_index >= bind.fields.size() || !bind.uniform) {
		return nullptr;
	}
	auto &type = bind.types[column_index];
	auto env = PlannedEnvelope(bind.files, bind.fields[column_index], type, column_index);
	if (!env.known) {
		return nullptr;
	}
	auto stats = NumericStats::CreateEmpty(type);
	NumericStats::SetMin(stats, RawToValue(type, env.min));
	NumericStats::SetMax(stats, RawToValue(type, env.max));
	if (env.has_null) {
		stats.SetHasNull();
	}
	stats.SetHasNoNull();
	return stats.ToUnique();
}

} // namespace vortex
