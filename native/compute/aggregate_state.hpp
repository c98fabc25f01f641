// What a Vortex aggregate kernel accumulates over zones: everything needed to finish
// count/sum/mean/min/max under Vortex's own semantics or, in the DuckDB layer, DuckDB's.
#pragma once
#include "../format/column.hpp"
#include "../format/stats/stats.hpp"
#include "distinct_set.hpp"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace vtx {
namespace compute {

struct AggregateState {
	ColumnType type;
	uint64_t rows = 0;
	uint64_t non_null = 0;
	uint64_t nans = 0;
	uint64_t pos_inf = 0;
	uint64_t neg_inf = 0;
	int128 int_sum = 0;    //! exact: integers of at most 64 bits from statistics; 128-bit ones decoded
	bool sum_overflow = false; //! a decoded 128-bit sum left int128 (never once SumBounded holds)
	FloatAccumulator float_sum; //! floats: the exact sum of the finite values
	//! Floats: statistics without an exact sum were added where the sum was needed (format
	//! versions 1-3; the DuckDB layer never pushes those): the sum is then unknown.
	bool float_sum_unknown = false;
	bool has_minmax = false;
	std::string min, max; //! raw value bytes of the smallest/largest non-NaN value
	//! What decoded rows must contribute beyond counts (the rest is left out, for speed).
	bool needs_minmax = true;
	bool needs_sum = true;
	//! approx_count_distinct: the zones' sketch registers merged (max), and decoded rows hashed by
	//! `sketch_rows`, which the query engine's layer provides (the hash is the engine's).
	bool needs_sketch = false;
	std::array<uint8_t, kSketchRegisters> sketch {};
	using RowSketcher = std::function<void(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin,
	                                       uint64_t end, std::array<uint8_t, kSketchRegisters> &sketch)>;
	RowSketcher sketch_rows;
	//! count(DISTINCT x): the distinct values of the zones' statistics and of decoded rows.
	bool needs_distinct = false;
	DistinctSet distinct;

	explicit AggregateState(ColumnType type) : type(type), distinct(type) {
	}

	//! Whether a zone's statistics answer what is needed exactly, else decode the chunk.
	//! 128-bit integers keep no sum in their statistics; zones with many distinct values no set.
	static bool StatsSuffice(const ZoneStats &s, bool needs_minmax, bool needs_sum = false, bool needs_sketch = false,
	                         bool needs_distinct = false);
	//! The same for what this state needs.
	bool Suffices(const ZoneStats &s) const {
		return StatsSuffice(s, needs_minmax, needs_sum, needs_sketch, needs_distinct);
	}
	void AddStats(const ZoneStats &s);
	//! Adds another state of the same type (partial aggregates of disjoint rows).
	void Merge(const AggregateState &o);
	//! The same, free to take the other's distinct set where it is the larger (it is not copied).
	void Merge(AggregateState &&o);
	//! Adds the sum of 128-bit values, which statistics do not keep: dense, or NULL slots zeroed.
	void AddWideSum(const ColumnInput &dense);
	//! Adds the rows of a decoded chunk; with `selected`, only rows i where selected[i] != 0.
	void AddDecoded(const DecodedColumn &chunk, const uint8_t *selected = nullptr);
	//! Adds rows [begin, end) of a decoded chunk: a filter's one contiguous run of matches
	//! (a sorted column's range), read in place instead of compacted through a mask.
	void AddDecodedRange(const DecodedColumn &chunk, uint64_t begin, uint64_t end);

private:
	void AddRows(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end);
	void AddDictionaryRows(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end);
};

//! Proof that no order of addition of the non-NULL values the zones describe can leave
//! [-limit, limit]: max(|min|, |max|) × (non-NULL count) <= limit. Needs exact min/max in every
//! zone with values; signed integers only (the 128-bit ones whose sums are not kept).
bool SumBounded(const ColumnType &type, const std::vector<const ZoneStats *> &zones, uint128 limit);

//! Orders raw value bytes of one type: integers numerically, floats by value (no NaN),
//! strings bytewise.
int CompareValues(const ColumnType &type, const std::string &a, const std::string &b);

} // namespace compute
} // namespace vtx
