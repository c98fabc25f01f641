// An exact integer sum that vectorizes: a 128-bit add per value does not. 64-bit values are
// summed as their two 32-bit halves apart, narrower ones in one 64-bit word. Exact for at most
// 2^32 values: the low halves' sum stays below 2^64, the high halves' within the word.
#pragma once
#include "../types.hpp"

#include <cstdint>
#include <type_traits>

namespace vtx {

template <class T>
struct HalvesSum {
	using Word = typename std::conditional<std::is_signed<T>::value, int64_t, uint64_t>::type;
	uint64_t low = 0;
	Word high = 0;

	//! `bits`: the value widened to Word, as unsigned bits (or 0 to add nothing).
	static uint64_t Bits(T v) {
		return static_cast<uint64_t>(static_cast<Word>(v));
	}
	void Add(uint64_t bits) {
		if (sizeof(T) == 8) {
			low += bits & 0xffffffffu;
			high += static_cast<Word>(bits) >> 32; // arithmetic for signed values
		} else {
			high += static_cast<Word>(bits);
		}
	}
	int128 Total() const {
		return sizeof(T) == 8 ? static_cast<int128>(high) * (int128(1) << 32) + static_cast<int128>(low)
		                      : static_cast<int128>(high);
	}
};

} // namespace vtx
