// Grouped accumulation inside the reader: per group of key values, the same AggregateState the
// ungrouped path keeps, fed from zone statistics where a zone's keys are one value (or all NULL)
// and from decoded rows elsewhere. Keys are compared as raw bytes, which is DuckDB's equality
// for the key types the DuckDB layer admits (no floats, no collations).
#pragma once
#include "aggregate_state.hpp"

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

class GroupedAggregation {
public:
	GroupedAggregation(std::vector<ColumnType> key_types, std::vector<ColumnType> value_types);

	//! The zone's single key value when its statistics prove every row has it: min = max
	//! (exact) and no NULL, or every row NULL. False otherwise.
	static bool ConstantKey(const ColumnType &type, const ZoneStats &stats, bool &is_null, std::string &key);

	//! A zone whose keys are all constant: its value statistics go to one group.
	void AddZone(const std::vector<bool> &key_null, const std::vector<std::string> &keys, uint64_t rows,
	             const std::vector<const ZoneStats *> &values);
	//! A decoded zone: `keys` and `values` hold the same rows; with `selected`, only the rows
	//! whose byte is nonzero count.
	void AddDecoded(const std::vector<const DecodedColumn *> &keys, const std::vector<const DecodedColumn *> &values,
	                const uint8_t *selected = nullptr);

	const std::vector<GroupState> &Groups() const {
		return groups;
	}

private:
	GroupState &Find(const std::vector<bool> &key_null, const std::vector<std::string> &keys);
	std::string Encode(const std::vector<bool> &key_null, const std::vector<std::string> &keys) const;

	std::vector<ColumnType> key_types;
	std::vector<ColumnType> value_types;
	std::unordered_map<std::string, size_t> index;
	std::vector<GroupState> groups;
};

} // namespace compute
} // namespace vtx
