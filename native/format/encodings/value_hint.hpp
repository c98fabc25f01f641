// What encoding a chunk settled about its valid values, so that its statistics need not pass
// over the rows again for it (ComputeStats).
#pragma once
#include "../column.hpp"
#include "../stats/string_range.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace vtx {

struct ValueHint {
	enum class Distinct : uint8_t {
		UNKNOWN,
		ALL,  //! `values` holds every distinct valid value once (raw bytes), in any order
		MANY, //! more than kMaxDistinctValues distinct valid values
	};
	Distinct distinct = Distinct::UNKNOWN;
	std::vector<std::string> values;
	//! Strings: where set, `range` holds the smallest and largest valid value (in the chunk's or
	//! the encoder's memory, alive until the chunk's statistics are taken).
	bool has_range = false;
	StringRange range;
	//! Integers of a narrow frame: every distinct valid value once (raw bytes, `ByteWidth()` each),
	//! however many; empty where not found. The writer hashes these instead of every row for the
	//! zone's sketch.
	std::vector<uint8_t> fixed_values;
};

} // namespace vtx
