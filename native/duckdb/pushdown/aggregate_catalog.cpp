#include "aggregate_catalog.hpp"

namespace vortex {

constexpr AggregateSpec kAggregates[] = {
    {AggregateKind::COUNT_STAR, {"count_star"}, false, nullptr, Setting::PUSHDOWN_COUNT, nullptr, "count_star", kNeedsCounts},
    {AggregateKind::COUNT, {"count"}, false, nullptr, Setting::PUSHDOWN_COUNT, nullptr, "count", kNeedsCounts},
    {AggregateKind::SUM,
     {"sum", "sum_no_overflow", "fsum", "kahan_sum", "sumkahan"},
     false,
     nullptr,
     Setting::PUSHDOWN_SUM,
     nullptr,
     "sum",
     kNeedsSum},
    {AggregateKind::AVG, {"avg", "favg"}, false, nullptr, Setting::PUSHDOWN_AVG, nullptr, "avg", kNeedsSum},
    {AggregateKind::MIN, {"min"}, false, nullptr, Setting::PUSHDOWN_MIN, nullptr, "min", kNeedsMinMax},
    {AggregateKind::MAX, {"max"}, false, nullptr, Setting::PUSHDOWN_MAX, nullptr, "max", kNeedsMinMax},
    {AggregateKind::COUNT_DISTINCT, {"count"}, true, "count_distinct", Setting::PUSHDOWN_DISTINCT,
     nullptr, "count_distinct", kNeedsDistinct},
    {AggregateKind::APPROX_DISTINCT, {"approx_count_distinct"}, false, nullptr, Setting::PUSHDOWN_APPROX_DISTINCT,
     "zone sketches are merged for the whole column", "approx_count_distinct", kNeedsSketch},
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
