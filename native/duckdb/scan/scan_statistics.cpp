#include "scan_statistics.hpp"

#include "plan_guard.hpp"
#include "../sketches.hpp"
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

namespace {

//! DuckDB's join order takes a column's distinct count from its statistics, and where there is
//! none, the scan's estimated rows, which count the filters the scan took (ScanCardinality): a
//! filtered dimension's key then looked five times less distinct than it is, and the dimension
//! was joined last (TPC-H q07, q09). The zones' HyperLogLog registers merged are DuckDB's own
//! estimate of the column's distinct values (sketches.hpp); 0 where some zone has none.
idx_t SketchedDistinct(ClientContext &context, const ScanBindData &bind, idx_t column) {
	if (!SketchedType(bind.types[column])) {
		return 0;
	}
	const uint64_t fingerprint = HashFingerprint(context, bind.types[column]);
	HyperLogLog registers;
	for (auto &f : bind.files) {
		auto &prints = f.meta->hash_fingerprints;
		if (prints.size() <= column || prints[column] != fingerprint) {
			return 0;
		}
		for (auto &z : f.meta->zones) {
			auto &s = z.chunks[column].stats;
			if (s.has_sketch) {
				MergeRegisters(registers, s.sketch);
			} else if (s.NonNull() != 0) {
				return 0;
			}
		}
	}
	return registers.Count();
}

} // namespace

// Exact bounds over all files: lets DuckDB prove, e.g., that a sum cannot overflow. Distinct
// counts (estimates) for the join order.
unique_ptr<BaseStatistics> ScanStatistics(ClientContext &context, const FunctionData *bind_data, column_t column_index) {
	auto &bind = bind_data->Cast<ScanBindData>();
	if (column_index >= bind.fields.size() || !bind.uniform) {
		return nullptr;
	}
	auto &type = bind.types[column_index];
	const idx_t distinct = SketchedDistinct(context, bind, column_index);
	auto env = PlannedEnvelope(bind.files, bind.fields[column_index], type, column_index);
	if (!env.known) {
		if (distinct == 0) {
			return nullptr;
		}
		auto stats = BaseStatistics::CreateUnknown(type);
		stats.SetDistinctCount(distinct);
		return stats.ToUnique();
	}
	const bool strings = ReportsStringStats(type);
	BaseStatistics stats = strings ? StringStats::CreateEmpty(type) : NumericStats::CreateEmpty(type);
	if (strings) {
		// DuckDB's own update, for its 8-byte bounds; the length and ASCII-ness are every value's.
		if (env.has_value) {
			StringStats::Update(stats, string_t(env.min.data(), static_cast<uint32_t>(env.min.size())));
			StringStats::Update(stats, string_t(env.max.data(), static_cast<uint32_t>(env.max.size())));
		}
		StringStats::SetMaxStringLength(stats, env.max_length);
		if (env.unicode) {
			StringStats::SetContainsUnicode(stats);
		}
	} else {
		NumericStats::SetMin(stats, RawToValue(type, env.min));
		NumericStats::SetMax(stats, RawToValue(type, env.max));
	}
	if (env.has_null) {
		stats.SetHasNull();
	}
	stats.SetHasNoNull();
	if (distinct > 0) {
		stats.SetDistinctCount(distinct);
	}
	return stats.ToUnique();
}

} // namespace vortex
