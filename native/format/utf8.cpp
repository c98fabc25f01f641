#include "utf8.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vtx {

namespace {

inline bool Continuation(uint8_t b) {
	return (b & 0xC0) == 0x80;
}

//! Past the ASCII bytes from i: 32, then 8, then 1 at a time.
inline size_t SkipAscii(const uint8_t *s, size_t i, size_t n) {
	constexpr uint64_t kHigh = 0x8080808080808080ull;
	while (i + 32 <= n) {
		uint64_t w[4];
		std::memcpy(w, s + i, 32);
		if ((w[0] | w[1] | w[2] | w[3]) & kHigh) {
			break;
		}
		i += 32;
	}
	while (i + 8 <= n) {
		uint64_t w;
		std::memcpy(&w, s + i, 8);
		if (w & kHigh) {
			break;
		}
		i += 8;
	}
	while (i < n && s[i] < 0x80) {
		i++;
	}
	return i;
}


//! Validates from i on, one sequence at a time, up to the first sequence boundary at or past
//! `until`; returns it, or n + 1 where the bytes are not valid. One branch per sequence length,
//! each with only the checks its lead byte needs.
size_t ValidateSequences(const uint8_t *s, size_t i, size_t n, size_t until) {
	while (i < until) {
		const uint8_t c = s[i];
		if (c < 0x80) {
			i = SkipAscii(s, i, n);
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF) {
			if (n - i < 2 || !Continuation(s[i + 1])) {
				return n + 1;
			}
			i += 2;
		} else if ((c & 0xF0) == 0xE0) {
			if (n - i < 3) {
				return n + 1;
			}
			const uint8_t b1 = s[i + 1];
			// E0 would be overlong below A0; ED at A0 and above encodes a surrogate.
			if (!Continuation(b1) || !Continuation(s[i + 2]) || (c == 0xE0 && b1 < 0xA0) || (c == 0xED && b1 > 0x9F)) {
				return n + 1;
			}
			i += 3;
		} else if (c >= 0xF0 && c <= 0xF4) {
			if (n - i < 4) {
				return n + 1;
			}
			const uint8_t b1 = s[i + 1];
			// F0 would be overlong below 90; F4 at 90 and above passes U+10FFFF.
			if (!Continuation(b1) || !Continuation(s[i + 2]) || !Continuation(s[i + 3]) || (c == 0xF0 && b1 < 0x90) ||
			    (c == 0xF4 && b1 > 0x8F)) {
				return n + 1;
			}
			i += 4;
		} else {
			return n + 1; // a continuation byte, C0/C1 (overlong) or F5 and above
		}
	}
	return i;
}

} // namespace

// Text in Cyrillic, Greek or accented Latin is mostly ASCII and two-byte characters with the odd
// three-byte one (a dash, a quote), and a branch per character over it took a quarter of a scan
// of Russian titles. Sixteen bytes a step (SSE2, x86-64's baseline): a block holding only ASCII,
// continuation bytes and the leads of two- and three-byte characters is valid exactly where its
// continuation bytes are the ones those leads call for (a character may carry into the next
// block). The three-byte leads E0 and ED, whose second byte has a narrower range, four-byte
// characters and invalid bytes send their block to the sequence-by-sequence check, which hands
// back at a character boundary.
bool ValidUtf8(const uint8_t *s, size_t n) {
	size_t i = 0;
#if defined(__SSE2__)
	// Signed compares: continuation bytes 80..BF are the least; leads C2..DF lie between C1 and E0.
	const __m128i below_lead = _mm_set1_epi8(static_cast<char>(0xC0));
	const __m128i lead2_low = _mm_set1_epi8(static_cast<char>(0xC1));
	const __m128i lead3 = _mm_set1_epi8(static_cast<char>(0xE0));
	const __m128i lead3_ed = _mm_set1_epi8(static_cast<char>(0xED));
	const __m128i high_nibble = _mm_set1_epi8(static_cast<char>(0xF0));
	unsigned carry = 0; // continuation bytes the previous block's last characters call for
	auto start_of_carried = [&](size_t at) {
		return s[at - 1] >= 0xC0 ? at - 1 : at - 2; // its lead: the last byte, or the one before
	};
	while (i + 16 <= n) {
		const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
		const auto high = static_cast<unsigned>(_mm_movemask_epi8(b));
		if (high == 0 && carry == 0) {
			// An ASCII block: the run it may start is skipped 64 bytes a step (only from such a block,
			// so that mixed text does not pay for the wider test at every step).
			for (i += 16; i + 64 <= n; i += 64) {
				const auto *at = reinterpret_cast<const __m128i *>(s + i);
				const __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(at), _mm_loadu_si128(at + 1)),
				                                 _mm_or_si128(_mm_loadu_si128(at + 2), _mm_loadu_si128(at + 3)));
				if (_mm_movemask_epi8(any) != 0) {
					break;
				}
			}
			continue;
		}
		const auto cont = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(b, below_lead)));
		const auto two = static_cast<unsigned>(
		    _mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(b, lead2_low), _mm_cmplt_epi8(b, lead3))));
		const __m128i is_three = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(b, lead3), _mm_cmpeq_epi8(b, lead3_ed)),
		                                          _mm_cmpeq_epi8(_mm_and_si128(b, high_nibble), lead3));
		const auto three = static_cast<unsigned>(_mm_movemask_epi8(is_three));
		if ((high & ~(cont | two | three)) == 0) {
			const unsigned called = (two << 1) | (three << 1) | (three << 2);
			if (cont != ((called | carry) & 0xFFFF)) {
				return false;
			}
			carry = called >> 16;
			i += 16;
			continue;
		}
		i = ValidateSequences(s, carry ? start_of_carried(i) : i, n, i + 16);
		if (i > n) {
			return false;
		}
		carry = 0;
	}
	if (carry) {
		i = start_of_carried(i);
	}
#endif
	return ValidateSequences(s, i, n, n) == n;
}

} // namespace vtx
