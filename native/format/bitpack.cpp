#include "bitpack.hpp"

#include <cstring>

namespace vtx {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "row i of a group of eight is byte i of a word");

void UnpackBitsToBytes(const uint8_t *packed, uint64_t n, uint8_t zero, uint8_t one, uint8_t *out) {
	constexpr uint64_t kOnes = 0x0101010101010101ULL;
	const uint64_t base = kOnes * zero, flip = zero ^ one;
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		const uint64_t bits = (PackedWord(packed, i >> 6) >> (i & 63)) & 0xFF;
		// Byte k keeps bit k of `bits`; adding 0x7F moves any set bit to the byte's top bit.
		uint64_t x = (bits * kOnes) & 0x8040201008040201ULL;
		x = ((x + 0x7F7F7F7F7F7F7F7FULL) & 0x8080808080808080ULL) >> 7;
		x = base ^ (x * flip); // each byte 0 or 1 times flip: no carry between bytes
		std::memcpy(out + i, &x, sizeof(x));
	}
	for (; i < n; i++) {
		out[i] = (PackedWord(packed, i >> 6) >> (i & 63)) & 1 ? one : zero;
	}
}

} // namespace vtx
