// Grouped accumulation inside the reader: per group of key values, the same AggregateState the
// ungrouped path keeps, fed from zone statistics where a zone's keys are one value (or all NULL)
// and from decoded rows elsewhere. Keys are compared as raw bytes, which is DuckDB's equality
// for the key types the DuckDB layer admits (no floats, no collations).
#pragma once
#include "aggregate_state.hpp"
#include "../format/file/metadata.hpp"

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace vtx {
namespace compute {

struct GroupState {
	std::vector<std::string> keys; //! raw key bytes per key column
	std::vector<bool> key_null;    //! per key column
	uint64_t rows = 0;
	std::vector<AggregateState> values; //! per value column
};

//! A key that is a function of one column's values (a bucket such as `month(d)`). Where that
//! column takes few values in a zone (the days of a few years), the function is applied once per
//! distinct value instead of once per row, and the rows are grouped by their values' ids.
struct KeyFunction {
	ColumnType input; //! the column's type (fixed-width)
	//! Keys `values` (rows of `input`, NULL ones included) into `keys`, a column of the key's
	//! type, row for row, as the function keys a zone's rows.
	std::function<void(const DecodedColumn &values, DecodedColumn &keys)> apply;
};

class GroupedAggregation {
public:
	//! `needs_minmax` / `needs_sum`, per value column (empty: everything), say what decoded rows
	//! must contribute beyond counts.
	GroupedAggregation(std::vector<ColumnType> key_types, std::vector<ColumnType> value_types,
	                   std::vector<bool> needs_minmax = {}, std::vector<bool> needs_sum = {},
	                   std::vector<bool> needs_distinct = {});

	//! The zone's single key value when its statistics prove every row has it: min = max
	//! (exact) and no NULL, or every row NULL. False otherwise.
	static bool ConstantKey(const ColumnType &type, const ZoneStats &stats, bool &is_null, std::string &key);

	//! max - min + 1 of an integer-stored chunk whose statistics hold its exact range, or 0.
	static uint64_t RangeWidth(const ColumnType &type, const ZoneStats &stats);
	//! An upper bound on the distinct keys (NULL counting as one) of a key chunk of `rows` rows,
	//! from its metadata alone: 1 where ConstantKey holds; the width of an exact integer range;
	//! for a dictionary-coded chunk, 2^(bits per row its bytes allow) — its codes alone take at
	//! least log2(distinct) bits a row; else `rows`.
	static uint64_t KeysBound(const ColumnType &type, const ChunkMeta &chunk, uint64_t rows);

	//! A zone whose keys are all constant: its value statistics go to one group.
	void AddZone(const std::vector<bool> &key_null, const std::vector<std::string> &keys, uint64_t rows,
	             const std::vector<const ZoneStats *> &values);
	//! A decoded zone: `keys` and `values` hold the same rows; with `selected`, only the rows
	//! whose byte is nonzero count. Where `functions[k]` is set, keys[k] is that function's input
	//! column, and the function is applied only to the values of the rows that count.
	void AddDecoded(const std::vector<const DecodedColumn *> &keys, const std::vector<const DecodedColumn *> &values,
	                const uint8_t *selected = nullptr, const std::vector<const KeyFunction *> &functions = {});
	//! A decoded zone with one key column whose key is constant over consecutive rows (a bucket
	//! of an ascending column): run r covers rows [starts[r], starts[r + 1]) (the last up to
	//! `rows`) and has key bytes keys[r], never NULL. Each run's values are added as a range.
	void AddRuns(const std::vector<uint64_t> &starts, const std::vector<std::string> &keys, uint64_t rows,
	             const std::vector<const DecodedColumn *> &values);
	//! Where there is no key column (one group): adds the rows of a decoded zone whose entry of
	//! the dictionary-coded `coded` is kept (`keep[e]` for entry e, `keep[dictionary size]` for
	//! NULL). A filter decided per dictionary entry is so applied to each entry's accumulators
	//! once, instead of to each row. `coded` and `values` hold the same rows.
	void AddKeptEntries(const DecodedColumn &coded, const uint8_t *keep, const std::vector<const DecodedColumn *> &values);
	//! Adds the groups of another accumulation of the same keys and values (disjoint rows). The
	//! other's groups that this lacks are moved in whole (distinct sets are not copied); `other`
	//! is left empty.
	void Merge(GroupedAggregation &&other);

	const std::vector<GroupState> &Groups() const {
		return groups;
	}

	//! Per-zone working memory of AddDecoded, kept from one zone to the next (opaque).
	struct Scratch;

private:
	GroupState &Find(const std::vector<bool> &key_null, const std::vector<std::string> &keys);
	void Encode(const std::vector<bool> &key_null, const std::vector<std::string> &keys, std::string &out) const;
	AggregateState NewState(size_t v) const;
	//! How each value column's decoded rows are accumulated (scratch paths, float windows).
	void ChoosePaths(const std::vector<const DecodedColumn *> &values, uint64_t card);
	//! Step 2 of AddDecoded: every value column's rows into their ids' accumulators, and the
	//! rows per id (s.rows).
	void AccumulateRows(const uint32_t *ids, uint64_t card, uint64_t rows, const std::vector<const DecodedColumn *> &values,
	                    const uint8_t *selected);
	//! Steps of AddDecoded for value column `v`, whose rows have group ids `ids` (< card):
	//! accumulate per id; take the rows per id from its counts; add the ids into their groups.
	void AccumulateValues(size_t v, const DecodedColumn &col, const uint32_t *ids, uint64_t card,
	                      const uint8_t *selected);
	void CountsFrom(size_t v, uint64_t card);
	//! (`keep`: AddKeptEntries's, or null.)
	void FinishValues(size_t v, const DecodedColumn &col, const uint32_t *ids, uint64_t card, const uint8_t *selected,
	                  const uint8_t *keep);
	bool DictionaryBounds(size_t v, const DecodedColumn &col, const uint32_t *ids, uint64_t card, const uint8_t *selected,
	                      const uint8_t *keep);
	void StringBounds(size_t v, const DecodedColumn &col, const uint32_t *ids, uint64_t card, const uint8_t *selected,
	                  const uint8_t *keep);
	//! The strings of group id `id` gathered in the scratch (its bounds) into its state for value `v`.
	void AddStrings(size_t v, uint64_t id, uint64_t valid);

	std::vector<ColumnType> key_types;
	std::vector<ColumnType> value_types;
	std::vector<bool> needs_minmax, needs_sum, needs_distinct;
	std::unordered_map<std::string, size_t> index;
	std::string encoded; //! Find's and Merge's key, encoded
	std::vector<GroupState> groups;
	size_t last_zone_group = ~size_t(0); //! AddZone's last group
	std::shared_ptr<Scratch> scratch;
};

} // namespace compute
} // namespace vtx
