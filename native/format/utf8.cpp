#include "utf8.hpp"

#include <cstring>

namespace vtx {

bool ValidUtf8(const uint8_t *s, size_t n) {
	size_t i = 0;
	while (i < n) {
		// ASCII runs dominate real data: test 32 bytes, then 8, at a time.
		while (i + 32 <= n) {
			uint64_t w[4];
			std::memcpy(w, s + i, 32);
			if ((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ull) {
				break;
			}
			i += 32;
		}
		while (i + 8 <= n) {
			uint64_t w;
			std::memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ull) {
				break;
			}
			i += 8;
		}
		if (i >= n) {
			break;
		}
		const uint8_t c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len;
		uint32_t cp;
		if (c >= 0xC2 && c <= 0xDF) {
			len = 2;
			cp = c & 0x1F;
		} else if ((c & 0xF0) == 0xE0) {
			len = 3;
			cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			len = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len > n - i) {
			return false;
		}
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80) {
				return false;
			}
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
			return false;
		}
		i += len;
	}
	return true;
}

} // namespace vtx
