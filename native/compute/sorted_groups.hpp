// GROUP BY a key the file is sorted by (an order's lines by l_orderkey, a user's events by user
// id): each zone's groups found as runs of equal keys, in key order, with no hash table.
//
// DuckDB's hash aggregate spends most of its time on the groups themselves when there are many
// (TPC-H q18: 1.5M orders over 6M lines, 0.3 s of CPU), however few rows each has. Where zone
// statistics prove the zones' key ranges follow each other (each zone's max at most the next
// one's min), a key strictly between a zone's first and last key occurs in no other zone: those
// groups are final when the zone is done. Only a zone's first and last groups may continue in a
// neighbour, and are merged across zones (MergeGroup) before they are handed on.
//
// Keys and values are integers of 1 to 8 bytes (signed or unsigned), as stored. A zone whose rows
// turn out not to be in key order (statistics cannot tell) is grouped in a sorted copy of its
// row order instead: still exact, only slower.
#pragma once
#include "../format/column.hpp"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace vtx {
namespace compute {

enum class SortedAggregate : uint8_t { COUNT_STAR, COUNT, SUM, MIN, MAX };

//! An integer column as stored: `width` bytes, two's complement where `is_signed`.
struct IntegerLayout {
	uint8_t width = 8;
	bool is_signed = true;

	//! The value's bytes at `p`, zero-extended. (A switch, not memcpy of `width` bytes: that
	//! compiles to a `rep movs`, which cost more than the rest of the grouping together.)
	uint64_t Bits(const uint8_t *p) const {
		switch (width) {
		case 1: return *p;
		case 2: {
			uint16_t v;
			std::memcpy(&v, p, 2);
			return v;
		}
		case 4: {
			uint32_t v;
			std::memcpy(&v, p, 4);
			return v;
		}
		default: {
			uint64_t v;
			std::memcpy(&v, p, 8);
			return v;
		}
		}
	}
	//! The value of bits `raw` (as Bits returns them), widened to 128 bits.
	__int128 Widen(uint64_t raw) const {
		if (is_signed && width < 8 && ((raw >> (width * 8 - 1)) & 1)) {
			raw |= ~uint64_t(0) << (width * 8); // sign-extend
		}
		return is_signed ? static_cast<__int128>(static_cast<int64_t>(raw)) : static_cast<__int128>(raw);
	}
	//! The value at `p`, widened to 128 bits.
	__int128 Load(const uint8_t *p) const {
		return Widen(Bits(p));
	}
	//! A 64-bit image of the value whose unsigned order is the values' order.
	uint64_t Ordered(const uint8_t *p) const {
		const __int128 v = Load(p);
		return is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (uint64_t(1) << 63) : static_cast<uint64_t>(v);
	}
};

struct SortedAggregateSpec {
	SortedAggregate kind = SortedAggregate::COUNT_STAR;
	size_t value = 0; //! index into the value columns (not for COUNT_STAR)
};

//! Groups in ascending key order, one entry per group in each array.
struct SortedGroups {
	std::vector<uint64_t> keys; //! the key's raw bytes, zero-extended
	std::vector<uint64_t> rows; //! rows of the group (count_star)
	//! Per aggregate: the sum, min or max (as 128 bits) and the non-NULL values counted.
	std::vector<std::vector<__int128>> acc;
	std::vector<std::vector<uint64_t>> counts;

	size_t Size() const {
		return keys.size();
	}
	void Clear(size_t aggregates);
};

class SortedGrouper {
public:
	SortedGrouper(IntegerLayout key, std::vector<IntegerLayout> values, std::vector<SortedAggregateSpec> aggregates);

	//! Groups `n` rows of a zone: the key column (no NULL keys) and value columns, decoded; with
	//! `selected`, only rows whose byte is nonzero. Replaces `out`.
	void GroupZone(const DecodedColumn &key, const std::vector<const DecodedColumn *> &values, const uint8_t *selected,
	               uint64_t n, SortedGroups &out);
	//! Adds group `i` of `from` into group `j` of `into` (the same key).
	void MergeGroup(SortedGroups &into, size_t j, const SortedGroups &from, size_t i) const;
	//! Appends group `i` of `from` to `into`.
	void CopyGroup(SortedGroups &into, const SortedGroups &from, size_t i) const;
	size_t Aggregates() const {
		return aggregates.size();
	}

private:
	//! Sorts `order` (rows of `keys`) by key.
	void SortByKey(const uint8_t *keys);

	IntegerLayout key;
	std::vector<IntegerLayout> values;
	std::vector<SortedAggregateSpec> aggregates;
	std::vector<uint32_t> order;   //! a zone's selected rows (by key, where they were not in order)
	std::vector<uint64_t> starts;  //! the position where each group begins
	//! To sort a zone's rows by key where they were not in order (SortByKey).
	std::vector<uint32_t> slots, sorted;
	std::vector<std::pair<uint64_t, uint32_t>> pairs;
};

} // namespace compute
} // namespace vtx
