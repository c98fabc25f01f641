// The smallest and largest of a chunk's strings, bytewise, found in one pass that mostly compares
// words: the statistics' string min/max, and the encoder's, which finds them while it copies.
#pragma once
#include "../column.hpp"

#include <cstdint>
#include <cstring>

namespace vtx {

inline int CompareBytes(const StringRef &a, const StringRef &b) {
	auto n = a.len < b.len ? a.len : b.len;
	int c = n ? std::memcmp(a.ptr, b.ptr, n) : 0;
	if (c != 0) {
		return c;
	}
	return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

//! The bytes of a string, loaded in words that stay within it: its first and last eight bytes
//! (n >= 8), or four (n >= 4), or its first, middle and last byte in the low bytes of `a`
//! (0 < n < 4). With the length they determine a string of up to 16 bytes. (A copy of fewer than
//! eight bytes into a word went byte by byte and stalled the load after it.)
struct EdgeWords {
	uint64_t a = 0, b = 0;
};

inline EdgeWords EdgesOf(const char *p, uint32_t n) {
	EdgeWords e;
	if (n >= 8) {
		std::memcpy(&e.a, p, 8);
		std::memcpy(&e.b, p + n - 8, 8);
	} else if (n >= 4) {
		uint32_t x, y;
		std::memcpy(&x, p, 4);
		std::memcpy(&y, p + n - 4, 4);
		e.a = x;
		e.b = y;
	} else if (n > 0) {
		e.a = uint64_t(uint8_t(p[0])) | uint64_t(uint8_t(p[n / 2])) << 8 | uint64_t(uint8_t(p[n - 1])) << 16;
	}
	return e;
}

//! The first eight bytes of a string as a big-endian number (zero-padded): where two strings'
//! prefixes differ, they order the strings as the bytes do.
inline uint64_t Prefix(const StringRef &v) {
	const uint32_t n = v.len;
	const EdgeWords e = EdgesOf(v.ptr, n);
	if (n >= 8) {
		return __builtin_bswap64(e.a);
	}
	if (n >= 4) {
		// The two four-byte words overlap where n < 8, on equal bytes.
		return uint64_t(__builtin_bswap32(uint32_t(e.a))) << 32 | uint64_t(__builtin_bswap32(uint32_t(e.b))) << (64 - 8 * n);
	}
	if (n == 0) {
		return 0;
	}
	return (e.a & 0xff) << 56 | ((e.a >> 8) & 0xff) << (56 - 8 * (n / 2)) | ((e.a >> 16) & 0xff) << (56 - 8 * (n - 1));
}

//! Strings added one at a time; the bounds point at the strings given (which must outlive it).
class StringRange {
public:
	void Add(const StringRef &v) {
		const uint64_t prefix = Prefix(v);
		if (!have_) {
			lo_ = hi_ = v;
			lo_prefix_ = hi_prefix_ = prefix;
			have_ = true;
			return;
		}
		// Most strings fall strictly between the bounds on their first eight bytes.
		if (prefix > lo_prefix_ && prefix < hi_prefix_) {
			return;
		}
		if (prefix < lo_prefix_ || (prefix == lo_prefix_ && CompareBytes(v, lo_) < 0)) {
			lo_ = v;
			lo_prefix_ = prefix;
		}
		if (prefix > hi_prefix_ || (prefix == hi_prefix_ && CompareBytes(v, hi_) > 0)) {
			hi_ = v;
			hi_prefix_ = prefix;
		}
	}
	bool Empty() const {
		return !have_;
	}
	const StringRef &Low() const {
		return lo_;
	}
	const StringRef &High() const {
		return hi_;
	}

private:
	StringRef lo_ {nullptr, 0}, hi_ {nullptr, 0};
	uint64_t lo_prefix_ = 0, hi_prefix_ = 0;
	bool have_ = false;
};

} // namespace vtx
