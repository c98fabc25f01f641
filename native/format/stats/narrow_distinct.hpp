// The distinct values of integers whose frame (largest minus smallest) is narrow, found with a
// map of one byte per value of the frame instead of a hash table: a store per row, with no
// dependence between rows (a bitmap's read-modify-write chained the rows of sorted keys), then
// the map read eight bytes at a time.
#pragma once
#include "../scratch.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace vtx {

//! The widest frame worth a map for n values: a few bytes a row, within the CPU's cache.
inline uint64_t NarrowFrameLimit(uint64_t n) {
	const uint64_t cap = uint64_t(1) << 20;
	return 4 * n < cap ? 4 * n : cap;
}

//! The distinct values of vals[0, n), in ascending order of `value ^ sign`, given that every
//! `value ^ sign` lies in [lo, lo + span] (span < NarrowFrameLimit). Inside a ScratchLease.
template <class U>
void NarrowDistinct(const U *vals, uint64_t n, uint64_t sign, uint64_t lo, uint64_t span, std::vector<U> &out) {
	thread_local ScratchSlot<std::vector<uint8_t>> kept;
	auto &map = kept.value;
	const uint64_t size = (span / 8 + 1) * 8;
	if (map.size() < size) {
		map.resize(size);
	}
	uint8_t *seen = map.data();
	std::memset(seen, 0, size);
	for (uint64_t i = 0; i < n; i++) {
		seen[(static_cast<uint64_t>(vals[i]) ^ sign) - lo] = 1;
	}
	out.clear();
	for (uint64_t at = 0; at < size; at += 8) {
		uint64_t word;
		std::memcpy(&word, seen + at, 8);
		// Each byte is 0 or 1: one bit, the lowest of its byte, per value present.
		for (; word; word &= word - 1) {
			const uint64_t o = at + static_cast<uint64_t>(__builtin_ctzll(word)) / 8;
			out.push_back(static_cast<U>((lo + o) ^ sign));
		}
	}
}

} // namespace vtx
