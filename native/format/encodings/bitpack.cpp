#include "bitpack.hpp"

#include <cstring>

namespace vtx {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "row i of a group of eight is byte i of a word");

void UnpackBitsToBytes(const uint8_t *packed, uint64_t n, uint8_t zero, uint8_t one, uint8_t *out) {
	constexpr uint64_t kOnes = 0x0101010101010101ULL;
	const uint64_t base = kOnes * zero, flip = zero ^ one;
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x = BitsToBytes(PackedWord(packed, i >> 6) >> (i & 63));
		x = base ^ (x * flip); // each byte 0 or 1 times flip: no carry between bytes
		std::memcpy(out + i, &x, sizeof(x));
	}
	for (; i < n; i++) {
		out[i] = (PackedWord(packed, i >> 6) >> (i & 63)) & 1 ? one : zero;
	}
}

} // namespace vtx
