// The aggregates the reader can answer, one row each: the only place an aggregate's DuckDB names,
// its switch and where it may be pushed are written. The optimizer finds a bound aggregate's row
// here; the addon exports the rows (test/catalog.test.ts checks src/catalog.ts and src/rules.ts
// against them).
#pragma once
#include "../settings.hpp"

#include <cstdint>
#include <string>

namespace vortex {

//! COUNT_DISTINCT is count(DISTINCT x); APPROX_DISTINCT approx_count_distinct(x) (sketches.hpp).
enum class AggregateKind : uint8_t { COUNT_STAR, COUNT, SUM, AVG, MIN, MAX, COUNT_DISTINCT, APPROX_DISTINCT };

//! What of a column's zone state (compute/aggregate_state.hpp) an aggregate reads besides its
//! counts, so that each plan keeps and decodes only that.
enum StateNeeds : uint8_t { kNeedsCounts = 0, kNeedsMinMax = 1, kNeedsSum = 2, kNeedsDistinct = 4, kNeedsSketch = 8 };

struct AggregateSpec {
	AggregateKind kind;
	//! The names DuckDB binds it as (its optimizers substitute count_star for count(x) and
	//! sum_no_overflow for sum), nullptr-terminated.
	const char *names[6];
	bool distinct;         //! bound with DISTINCT
	const char *rule_name; //! the key of its rules in src/rules.ts; nullptr: the bound name
	Setting setting;       //! its switch
	const char *not_per_group; //! why it is not answered per group of a GROUP BY; nullptr where it is
	const char *kind_name; //! for EXPLAIN and the catalog
	uint8_t needs;         //! StateNeeds
};

extern const AggregateSpec kAggregates[];
extern const size_t kAggregateCount;

//! The row of an aggregate bound as `name` (with DISTINCT when `distinct`), or nullptr.
const AggregateSpec *FindAggregate(const std::string &name, bool distinct);
const AggregateSpec &SpecOf(AggregateKind kind);
//! Whether aggregates of `kind` read `part` of their column's state.
bool Needs(AggregateKind kind, StateNeeds part);
//! The name its rules are keyed on in src/rules.ts.
std::string RuleName(const AggregateSpec &spec, const std::string &bound_name);

} // namespace vortex
