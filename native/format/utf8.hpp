#pragma once
#include <cstddef>
#include <cstdint>

namespace vtx {

//! Whether bytes are well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool ValidUtf8(const uint8_t *s, size_t n);

//! A continuation byte cannot start a character: a string block that is valid UTF-8 as a whole
//! and whose strings all start on such a boundary holds only valid strings.
inline bool StartsCharacter(const uint8_t *s, size_t n) {
	return n == 0 || (s[0] & 0xC0) != 0x80;
}

} // namespace vtx
