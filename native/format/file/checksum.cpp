#include "checksum.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace vtx {

namespace {

struct Table {
	uint32_t t[256];
	Table() {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++) {
				c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
			}
			t[i] = c;
		}
	}
};

uint32_t Portable(uint32_t crc, const uint8_t *p, size_t n) {
	static const Table table;
	for (size_t i = 0; i < n; i++) {
		crc = table.t[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	}
	return crc;
}

// Combining CRCs: the CRC register after A || B is the register after A advanced over
// |B| zero bytes, XOR the register over B started from 0 (the register update is linear).
// Advancing over a fixed number of zero bytes is a 32x32 matrix over GF(2), applied here
// through four 256-entry tables.
uint32_t MatrixTimes(const uint32_t *mat, uint32_t vec) {
	uint32_t sum = 0;
	for (; vec; vec >>= 1, mat++) {
		if (vec & 1) {
			sum ^= *mat;
		}
	}
	return sum;
}

void MatrixSquare(uint32_t *square, const uint32_t *mat) {
	for (int n = 0; n < 32; n++) {
		square[n] = MatrixTimes(mat, mat[n]);
	}
}

struct ShiftTable {
	uint32_t t[4][256];
	//! The operator for `len` zero bytes, len a power of two.
	explicit ShiftTable(size_t len) {
		uint32_t odd[32], even[32];
		odd[0] = 0x82F63B78u; // one zero bit
		for (int n = 1; n < 32; n++) {
			odd[n] = uint32_t(1) << (n - 1);
		}
		MatrixSquare(even, odd); // two bits
		MatrixSquare(odd, even); // four bits
		const uint32_t *op = nullptr;
		for (;;) {
			MatrixSquare(even, odd); // eight bits, then 2^k bytes
			len >>= 1;
			if (len == 0) {
				op = even;
				break;
			}
			MatrixSquare(odd, even);
			len >>= 1;
			if (len == 0) {
				op = odd;
				break;
			}
		}
		for (int k = 0; k < 4; k++) {
			for (uint32_t i = 0; i < 256; i++) {
				t[k][i] = MatrixTimes(op, i << (8 * k));
			}
		}
	}
	uint32_t Shift(uint32_t crc) const {
		return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
	}
};

#if defined(__x86_64__)
constexpr size_t kLong = 8192, kShort = 256;

template <size_t LEN>
__attribute__((target("sse4.2"))) inline void ThreeWay(uint64_t &c0, const uint8_t *&p, size_t &n, const ShiftTable &shift) {
	while (n >= 3 * LEN) {
		uint64_t c1 = 0, c2 = 0;
		for (size_t k = 0; k < LEN; k += 8) {
			uint64_t a, b, c;
			std::memcpy(&a, p + k, 8);
			std::memcpy(&b, p + LEN + k, 8);
			std::memcpy(&c, p + 2 * LEN + k, 8);
			c0 = _mm_crc32_u64(c0, a);
			c1 = _mm_crc32_u64(c1, b);
			c2 = _mm_crc32_u64(c2, c);
		}
		c0 = shift.Shift(static_cast<uint32_t>(c0)) ^ c1;
		c0 = shift.Shift(static_cast<uint32_t>(c0)) ^ c2;
		p += 3 * LEN;
		n -= 3 * LEN;
	}
}

//! Three independent streams keep the crc32 unit busy (one result per cycle, latency three).
__attribute__((target("sse4.2"))) uint32_t Hardware(uint32_t crc, const uint8_t *p, size_t n) {
	static const ShiftTable long_shift(kLong), short_shift(kShort);
	uint64_t c = crc;
	ThreeWay<kLong>(c, p, n, long_shift);
	ThreeWay<kShort>(c, p, n, short_shift);
	while (n >= 8) {
		uint64_t w;
		std::memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
		p += 8;
		n -= 8;
	}
	auto c32 = static_cast<uint32_t>(c);
	while (n--) {
		c32 = _mm_crc32_u8(c32, *p++);
	}
	return c32;
}
#endif

} // namespace

uint32_t Crc32c(const void *data, size_t n) {
	auto p = static_cast<const uint8_t *>(data);
#if defined(__x86_64__)
	static const bool hw = __builtin_cpu_supports("sse4.2");
	if (hw) {
		return ~Hardware(~0u, p, n);
	}
#endif
	return ~Portable(~0u, p, n);
}

} // namespace vtx
