// Bit-packing of unsigned deltas into 64-bit little-endian words, LSB first.
#pragma once
#include <cstdint>
#include <vector>

namespace vtx {

inline uint8_t BitWidth(uint64_t max_value) {
	return max_value == 0 ? 0 : static_cast<uint8_t>(64 - __builtin_clzll(max_value));
}

inline uint64_t PackedWords(uint64_t n, uint8_t bw) {
	return (n * bw + 63) / 64;
}

void Pack(const uint64_t *values, uint64_t n, uint8_t bw, std::vector<uint64_t> &words);

//! Calls sink(i, value) for each of the n packed values; `words` must hold PackedWords(n, bw).
template <class SINK>
inline void Unpack(const uint64_t *words, uint64_t n, uint8_t bw, SINK &&sink) {
	if (bw == 0) {
		for (uint64_t i = 0; i < n; i++) {
			sink(i, uint64_t(0));
		}
		return;
	}
	const uint64_t mask = bw == 64 ? ~uint64_t(0) : (uint64_t(1) << bw) - 1;
	uint64_t bit = 0;
	for (uint64_t i = 0; i < n; i++, bit += bw) {
		uint64_t w = bit >> 6, off = bit & 63;
		uint64_t v = words[w] >> off;
		if (off + bw > 64) {
			v |= words[w + 1] << (64 - off);
		}
		sink(i, v & mask);
	}
}

} // namespace vtx
