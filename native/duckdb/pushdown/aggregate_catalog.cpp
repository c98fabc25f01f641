#include "aggregate_catalog.hpp"

#include "../../compute/aggregate_state.hpp"
#include "../../compute/kernels.hpp"
#include "../../compute/sorted_groups.hpp"
#include "../../format/stats/stats.hpp"
#include "../sketches.hpp"
#include "../type_mapping.hpp"
#include "duckdb_semantics.hpp"
#include "plan.hpp"
#include "duckdb/common/types/decimal.hpp"

#include <cmath>
#include <limits>

namespace vortex {

using namespace duckdb;
using vtx::compute::SortedAggregate;

namespace {

// The result types and ranges the reader proves for each aggregate.

bool NativeCount(const PushedAggregate &a, const LogicalType &, const ScanBindData &) {
	return a.result_type == LogicalType::BIGINT;
}

bool NativeDistinct(const PushedAggregate &a, const LogicalType &stored, const ScanBindData &) {
	// Raw bytes must be DuckDB's equality (no floats, intervals, nested values), and no cast
	// between the column and the aggregate (a narrowing one would merge values).
	vtx::ColumnType type;
	return a.result_type == LogicalType::BIGINT && a.bound_type == stored && ToColumnType(stored, type) &&
	       vtx::DistinctType(type);
}

bool NativeSketch(const PushedAggregate &a, const LogicalType &stored, const ScanBindData &) {
	// DuckDB hashes the argument as bound: the very column type, whose hash the file's sketches used.
	return a.result_type == LogicalType::BIGINT && a.bound_type == stored && SketchedType(stored);
}

//! Float min/max never (NaN and -0.0 ordering), nor types whose bytes do not order as DuckDB does.
bool NativeExtreme(const PushedAggregate &a, const LogicalType &stored, const ScanBindData &) {
	const auto id = stored.id();
	return !IsFloatType(stored) && !IsFloatType(a.bound_type) && id != LogicalTypeId::INTERVAL &&
	       id != LogicalTypeId::TIME_TZ && id != LogicalTypeId::UUID;
}

//! Sums of 128-bit integers (HUGEINT, DECIMAL wider than 18 digits) have no sum in the zone
//! statistics and DuckDB checks each addition for overflow; they are pushed only when the
//! statistics prove that no order of addition can overflow (then DuckDB raises nothing and
//! the exact decoded sum is its answer). Decimals are held to 10^38 - 1 so that the result is
//! a valid DECIMAL(38, s).
bool WideSumProven(const ScanBindData &scan, idx_t field, const LogicalType &stored) {
	std::vector<const vtx::ZoneStats *> zones;
	for (auto &f : scan.files) {
		for (auto &z : f.meta->zones) {
			zones.push_back(&z.chunks[field].stats);
		}
	}
	vtx::uint128 limit = (static_cast<vtx::uint128>(1) << 127) - 1;
	if (stored.id() == LogicalTypeId::DECIMAL) {
		limit = 1;
		for (int i = 0; i < Decimal::MAX_WIDTH_DECIMAL; i++) {
			limit *= 10;
		}
		limit -= 1;
	}
	return vtx::compute::SumBounded(scan.fields[field].type, zones, limit);
}

//! sum or (`mean`) avg: floats summed exactly into a DOUBLE, integers where the exact sum is kept
//! (or proven not to overflow) and its result type known.
bool SumNative(const PushedAggregate &a, const LogicalType &stored, const ScanBindData &scan, bool mean) {
	if (IsFloatType(stored)) {
		return a.bound_type == LogicalType::DOUBLE && a.result_type == LogicalType::DOUBLE;
	}
	const auto id = stored.id();
	const bool integer_sum = id == LogicalTypeId::BOOLEAN || id == LogicalTypeId::DECIMAL || stored.IsIntegral();
	if (!integer_sum || stored.InternalType() == PhysicalType::UINT128) {
		return false;
	}
	if (stored.InternalType() == PhysicalType::INT128 && !WideSumProven(scan, a.field, stored)) {
		return false;
	}
	if (mean) {
		return a.result_type == LogicalType::DOUBLE && a.bound_type.id() != LogicalTypeId::BOOLEAN;
	}
	return SupportsIntegerSumResult(a.result_type);
}

bool NativeSum(const PushedAggregate &a, const LogicalType &stored, const ScanBindData &scan) {
	return SumNative(a, stored, scan, false);
}

bool NativeAvg(const PushedAggregate &a, const LogicalType &stored, const ScanBindData &scan) {
	return SumNative(a, stored, scan, true);
}

// Each aggregate's finalization, as DuckDB finalizes it (src/rules.ts says which rewrite of
// Vortex's semantics each binding needs: onEmpty, skipNans, onNonFinite).

void FinalizeRows(const PushedAggregate &, const Accumulated &in, Vector &out, idx_t row) {
	StoreInteger(out, row, in.rows);
}

void FinalizeValues(const PushedAggregate &, const Accumulated &in, Vector &out, idx_t row) {
	StoreInteger(out, row, in.values);
}

void FinalizeDistinct(const PushedAggregate &, const Accumulated &in, Vector &out, idx_t row) {
	StoreInteger(out, row, in.state->distinct.Size());
}

void FinalizeSketch(const PushedAggregate &, const Accumulated &in, Vector &out, idx_t row) {
	// DuckDB's own estimate over the same registers it would have built.
	HyperLogLog hll;
	MergeRegisters(hll, in.state->sketch);
	StoreInteger(out, row, static_cast<int64_t>(hll.Count()));
}

//! Over no values Vortex says 0 (sum) or NaN (mean); DuckDB says NULL. True when there were none.
bool FinishedEmpty(const PushedAggregate &a, const Accumulated &in, Vector &out, idx_t row) {
	if (in.values != 0) {
		return false;
	}
	if (a.empty_is_null) {
		FlatVector::SetNull(out, row, true);
	} else {
		out.SetValue(row, Value::Numeric(a.result_type, 0));
	}
	return true;
}

//! A sum or mean over a whole state that is not a finite float: raises where it cannot be known,
//! and is true (NaN written) where DuckDB's Kahan summation gives NaN.
bool FinishedNonFinite(const PushedAggregate &a, const vtx::compute::AggregateState &s, Vector &out, idx_t row) {
	if (s.sum_overflow) {
		// Unreachable: wide sums are pushed only when SumBounded proved this cannot happen.
		throw OutOfRangeException("Overflow in HUGEINT addition");
	}
	if (s.float_sum_unknown) {
		// Unreachable: float sums are pushed only over files whose statistics hold exact sums.
		throw InternalException("vortex: a pushed float sum met statistics without an exact sum");
	}
	vtx::compute::KernelOptions o;
	o.skip_nans = a.skip_nans;
	if (s.type.IsFloat() && a.non_finite_is_nan &&
	    (s.nans || s.pos_inf || s.neg_inf || std::isinf(vtx::compute::FloatSum(s, o)))) {
		// DuckDB's Kahan summation: an infinity makes its error term NaN, and the error term is
		// added when partial sums are combined.
		out.SetValue(row, Value::DOUBLE(std::numeric_limits<double>::quiet_NaN()));
		return true;
	}
	return false;
}

//! sum or (`mean`) avg: a state's float sum, else the exact integer sum.
void FinishSum(const PushedAggregate &a, const Accumulated &in, bool mean, Vector &out, idx_t row) {
	if (FinishedEmpty(a, in, out, row) || (in.state && FinishedNonFinite(a, *in.state, out, row))) {
		return;
	}
	if (in.state && in.state->type.IsFloat()) {
		vtx::compute::KernelOptions o;
		o.skip_nans = a.skip_nans;
		if (mean) {
			out.SetValue(row, Value::DOUBLE(vtx::compute::FloatMean(*in.state, o)));
		} else {
			out.SetValue(row, Value::DOUBLE(vtx::compute::FloatSum(*in.state, o)).DefaultCastAs(a.result_type));
		}
		return;
	}
	if (mean) {
		StoreDouble(out, row, DuckDBIntegerAverage(in.integer, in.values, a.bound_type));
	} else {
		StoreIntegerSum(out, row, in.integer);
	}
}

void FinalizeSum(const PushedAggregate &a, const Accumulated &in, Vector &out, idx_t row) {
	FinishSum(a, in, false, out, row);
}

void FinalizeAvg(const PushedAggregate &a, const Accumulated &in, Vector &out, idx_t row) {
	FinishSum(a, in, true, out, row);
}

//! min or max: a state's raw extreme bytes of the column's type, or sorted runs' integer of the
//! result type.
void FinishExtreme(const PushedAggregate &a, const Accumulated &in, bool min, Vector &out, idx_t row) {
	if (FinishedEmpty(a, in, out, row)) {
		return;
	}
	if (!in.state) {
		StoreInteger(out, row, in.integer);
		return;
	}
	if (!in.state->has_minmax) {
		FlatVector::SetNull(out, row, true);
		return;
	}
	auto v = RawToValue(*in.stored, min ? in.state->min : in.state->max);
	out.SetValue(row, v.type() == a.result_type ? v : v.DefaultCastAs(a.result_type));
}

void FinalizeMin(const PushedAggregate &a, const Accumulated &in, Vector &out, idx_t row) {
	FinishExtreme(a, in, true, out, row);
}

void FinalizeMax(const PushedAggregate &a, const Accumulated &in, Vector &out, idx_t row) {
	FinishExtreme(a, in, false, out, row);
}

// What sorted runs keep for each aggregate they answer, where their result is DuckDB's type.

bool RunsOfRows(const PushedAggregate &a, SortedAggregate &kept) {
	kept = SortedAggregate::COUNT_STAR;
	return a.result_type == LogicalType::BIGINT;
}

bool RunsOfValues(const PushedAggregate &a, SortedAggregate &kept) {
	kept = SortedAggregate::COUNT;
	return a.result_type == LogicalType::BIGINT;
}

bool RunsOfSum(const PushedAggregate &a, SortedAggregate &kept) {
	kept = SortedAggregate::SUM;
	return a.result_type.InternalType() == PhysicalType::INT128;
}

bool RunsOfAvg(const PushedAggregate &a, SortedAggregate &kept) {
	kept = SortedAggregate::SUM; // finished from its sum and count as DuckDB does
	return a.result_type == LogicalType::DOUBLE;
}

bool RunsOfMin(const PushedAggregate &a, SortedAggregate &kept) {
	kept = SortedAggregate::MIN;
	return a.result_type == a.bound_type;
}

bool RunsOfMax(const PushedAggregate &a, SortedAggregate &kept) {
	kept = SortedAggregate::MAX;
	return a.result_type == a.bound_type;
}

} // namespace

constexpr AggregateSpec kAggregates[] = {
    {AggregateKind::COUNT_STAR, {"count_star"}, false, nullptr, Setting::PUSHDOWN_COUNT, nullptr, "count_star",
     kNeedsCounts, NativeCount, RunsOfRows, FinalizeRows},
    {AggregateKind::COUNT, {"count"}, false, nullptr, Setting::PUSHDOWN_COUNT, nullptr, "count", kNeedsCounts,
     NativeCount, RunsOfValues, FinalizeValues},
    {AggregateKind::SUM,
     {"sum", "sum_no_overflow", "fsum", "kahan_sum", "sumkahan"},
     false,
     nullptr,
     Setting::PUSHDOWN_SUM,
     nullptr,
     "sum",
     kNeedsSum,
     NativeSum,
     RunsOfSum,
     FinalizeSum},
    {AggregateKind::AVG, {"avg", "favg"}, false, nullptr, Setting::PUSHDOWN_AVG, nullptr, "avg", kNeedsSum, NativeAvg,
     RunsOfAvg, FinalizeAvg},
    {AggregateKind::MIN, {"min"}, false, nullptr, Setting::PUSHDOWN_MIN, nullptr, "min", kNeedsMinMax, NativeExtreme,
     RunsOfMin, FinalizeMin},
    {AggregateKind::MAX, {"max"}, false, nullptr, Setting::PUSHDOWN_MAX, nullptr, "max", kNeedsMinMax, NativeExtreme,
     RunsOfMax, FinalizeMax},
    {AggregateKind::COUNT_DISTINCT, {"count"}, true, "count_distinct", Setting::PUSHDOWN_DISTINCT, nullptr,
     "count_distinct", kNeedsDistinct, NativeDistinct, nullptr, FinalizeDistinct},
    {AggregateKind::APPROX_DISTINCT, {"approx_count_distinct"}, false, nullptr, Setting::PUSHDOWN_APPROX_DISTINCT,
     "zone sketches are merged for the whole column", "approx_count_distinct", kNeedsSketch, NativeSketch, nullptr,
     FinalizeSketch},
};
const size_t kAggregateCount = sizeof(kAggregates) / sizeof(kAggregates[0]);

namespace {
// SpecOf(kind) indexes the table: its rows follow the enum.
constexpr bool RowsInKindOrder() {
	for (size_t i = 0; i < sizeof(kAggregates) / sizeof(kAggregates[0]); i++) {
		if (static_cast<size_t>(kAggregates[i].kind) != i) {
			return false;
		}
	}
	return true;
}
static_assert(RowsInKindOrder(), "kAggregates: one row per AggregateKind, in the enum's order");
} // namespace

const AggregateSpec *FindAggregate(const std::string &name, bool distinct) {
	for (auto &spec : kAggregates) {
		if (spec.distinct != distinct) {
			continue;
		}
		for (auto n = spec.names; *n; n++) {
			if (name == *n) {
				return &spec;
			}
		}
	}
	return nullptr;
}

const AggregateSpec &SpecOf(AggregateKind kind) {
	return kAggregates[static_cast<size_t>(kind)];
}

bool Needs(AggregateKind kind, StateNeeds part) {
	return (SpecOf(kind).needs & part) != 0;
}

std::string RuleName(const AggregateSpec &spec, const std::string &bound_name) {
	return spec.rule_name ? spec.rule_name : bound_name;
}

} // namespace vortex
