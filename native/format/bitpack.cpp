#include "bitpack.hpp"

namespace vtx {

void Pack(const uint64_t *values, uint64_t n, uint8_t bw, std::vector<uint64_t> &words) {
	words.assign(PackedWords(n, bw), 0);
	if (bw == 0) {
		return;
	}
	uint64_t bit = 0;
	for (uint64_t i = 0; i < n; i++, bit += bw) {
		uint64_t w = bit >> 6, off = bit & 63;
		words[w] |= values[i] << off;
		if (off + bw > 64) {
			words[w + 1] |= values[i] >> (64 - off);
		}
	}
}

} // namespace vtx
