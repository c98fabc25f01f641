// The aggregates the reader can answer, one row each: the only place an aggregate's DuckDB names,
// its switch, where it may be pushed, the result types the reader proves for it and how it is
// finalized are written. The optimizer finds a bound aggregate's row here, and every plan
// finalizes through it; the addon exports the rows (test/catalog.test.ts checks src/catalog.ts and
// src/rules.ts against them).
#pragma once
#include "../../format/types.hpp"
#include "../settings.hpp"

#include <cstdint>
#include <string>

namespace vtx {
namespace compute {
struct AggregateState;
enum class SortedAggregate : uint8_t;
} // namespace compute
} // namespace vtx

namespace vortex {

struct PushedAggregate;
struct ScanBindData;

//! COUNT_DISTINCT is count(DISTINCT x); APPROX_DISTINCT approx_count_distinct(x) (sketches.hpp).
enum class AggregateKind : uint8_t { COUNT_STAR, COUNT, SUM, AVG, MIN, MAX, COUNT_DISTINCT, APPROX_DISTINCT };

//! What of a column's zone state (compute/aggregate_state.hpp) an aggregate reads besides its
//! counts, so that each plan keeps and decodes only that.
enum StateNeeds : uint8_t { kNeedsCounts = 0, kNeedsMinMax = 1, kNeedsSum = 2, kNeedsDistinct = 4, kNeedsSketch = 8 };

//! What a plan accumulated for one aggregate over one group, as its finalization reads it. The
//! ungrouped and hashed grouped plans keep a whole AggregateState; sorted runs keep integers only
//! (a count and a sum or extreme), and their view has no state.
struct Accumulated {
	uint64_t rows = 0;       //! the group's rows, NULLs included
	uint64_t values = 0;     //! the values the aggregate counts (non-NULL; NaN left out where the rule says)
	vtx::int128 integer = 0; //! the exact integer sum; over sorted runs, the sum or the extreme
	//! Float sums, extremes of any type, distinct sets, sketches; null for count(*) and sorted runs.
	const vtx::compute::AggregateState *state = nullptr;
	const duckdb::LogicalType *stored = nullptr; //! the column's type, which `state`'s raw extremes are of
};

//! DuckDB's value of `a` over what `in` holds, into row `row` of `out` (of a.result_type).
using Finalizer = void (*)(const PushedAggregate &a, const Accumulated &in, duckdb::Vector &out, duckdb::idx_t row);
//! Whether sorted runs (compute/sorted_groups.hpp) give DuckDB's result type for `a` (its column
//! already checked to be an integer they read), and what they keep for it.
using RunsCheck = bool (*)(const PushedAggregate &a, vtx::compute::SortedAggregate &kept);

//! The native side's own limits, whatever the rules say: whether the reader proves DuckDB's
//! result type (and range) for `a` over a column stored as `stored`.
using NativeCheck = bool (*)(const PushedAggregate &a, const duckdb::LogicalType &stored, const ScanBindData &scan);

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
	NativeCheck native;
	RunsCheck runs; //! nullptr: sorted runs do not answer it
	Finalizer finalize;
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
