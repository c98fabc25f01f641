#include "selection.hpp"

#include "../format/column.hpp"
#include "../format/encodings/bitpack.hpp"

#include <cstring>

namespace vtx {
namespace compute {

namespace {

inline uint64_t Word(const uint8_t *p) {
	uint64_t w;
	std::memcpy(&w, p, sizeof(w));
	return w;
}

} // namespace

void AndSelection(uint8_t *mask, const uint8_t *other, uint64_t n) {
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		const uint64_t w = Word(mask + i) & Word(other + i);
		std::memcpy(mask + i, &w, sizeof(w));
	}
	for (; i < n; i++) {
		mask[i] &= other[i];
	}
}

void AndValidity(uint8_t *mask, const uint64_t *validity, uint64_t n) {
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		const uint64_t w = Word(mask + i) & BitsToBytes(validity[i >> 6] >> (i & 63));
		std::memcpy(mask + i, &w, sizeof(w));
	}
	for (; i < n; i++) {
		mask[i] &= (validity[i >> 6] >> (i & 63)) & 1;
	}
}

SelectionSummary Summarize(const uint8_t *mask, uint64_t n) {
	SelectionSummary s;
	uint64_t i = 0;
	// Each byte is 0 or 1: multiplying by 0x0101...01 sums a word's eight bytes into its top
	// byte (at most 8, no carry), where a popcount would be a library call on baseline x86-64.
	for (; i + 8 <= n; i += 8) {
		s.selected += (Word(mask + i) * 0x0101010101010101ULL) >> 56;
	}
	for (; i < n; i++) {
		s.selected += mask[i];
	}
	if (s.selected == 0) {
		return s;
	}
	// Bytes are little-endian in a word on the platforms DuckDB's node bindings ship for; the
	// ends are found byte by byte past the first and last non-zero words anyway.
	uint64_t first = 0;
	while (first + 8 <= n && Word(mask + first) == 0) {
		first += 8;
	}
	while (!mask[first]) {
		first++;
	}
	uint64_t end = n;
	while (end >= first + 8 && Word(mask + end - 8) == 0) {
		end -= 8;
	}
	while (!mask[end - 1]) {
		end--;
	}
	s.first = first;
	s.end = end;
	return s;
}

uint32_t SelectedRows(const uint8_t *mask, uint32_t n, uint32_t *out) {
	// 64 rows at a time: a block of none is skipped and a block of all is a run, which is what
	// masks of clustered or range filters mostly hold; mixed blocks are written without branches
	// (every row's position is stored, and the count advances only past a selected one). Deciding
	// per eight rows instead mispredicted about every other word of a mask that keeps most rows
	// at random (a join's key range over a fact table).
	constexpr uint64_t kAll = 0x0101010101010101ULL;
	uint32_t count = 0, i = 0;
	for (; i + 64 <= n; i += 64) {
		uint64_t any = 0, all = kAll;
		for (uint32_t j = 0; j < 64; j += 8) {
			const uint64_t w = Word(mask + i + j);
			any |= w;
			all &= w;
		}
		if (any == 0) {
			continue;
		}
		if (all == kAll) {
			for (uint32_t j = 0; j < 64; j++) {
				out[count + j] = i + j;
			}
			count += 64;
			continue;
		}
		for (uint32_t j = 0; j < 64; j++) {
			out[count] = i + j;
			count += mask[i + j];
		}
	}
	for (; i < n; i++) { // the last block of a zone's rows, under 64
		out[count] = i;
		count += mask[i];
	}
	return count;
}

uint64_t UsedEntries(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end,
                     std::vector<uint8_t> &used) {
	used.assign(chunk.dictionary.size(), 0);
	const auto *codes = chunk.codes.data();
	if (!selected && chunk.all_valid) {
		for (uint64_t i = begin; i < end; i++) {
			used[codes[i]] = 1;
		}
		return end > begin ? end - begin : 0;
	}
	uint64_t kept = 0;
	for (uint64_t i = begin; i < end; i++) {
		const bool take = (!selected || selected[i]) && chunk.IsValid(i);
		used[codes[i]] |= static_cast<uint8_t>(take);
		kept += take;
	}
	return kept;
}

} // namespace compute
} // namespace vtx
