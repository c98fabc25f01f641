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

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Hardware(uint32_t crc, const uint8_t *p, size_t n) {
	uint64_t c = crc;
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
