#include "string_match.hpp"

#include "selection.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vtx {
namespace compute {

namespace {

//! The first occurrence of `needle` (non-empty) in [p, end), or null. Sixteen candidate starts
//! a step: only where both the needle's first and last bytes line up are the bytes compared (the
//! SSE2 form of the generic SIMD substring search); glibc's memmem was a quarter of a URL filter.
const char *Find(const char *p, const char *end, const std::string &needle) {
	const size_t n = static_cast<size_t>(end - p), m = needle.size();
	if (n < m) {
		return nullptr;
	}
	if (m == 1) {
		return static_cast<const char *>(std::memchr(p, needle[0], n));
	}
	size_t i = 0;
#if defined(__SSE2__)
	const __m128i first = _mm_set1_epi8(needle[0]), last = _mm_set1_epi8(needle[m - 1]);
	for (; i + 15 + m <= n; i += 16) {
		const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
		const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i + m - 1));
		auto hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
		while (hits) {
			const size_t at = i + static_cast<size_t>(__builtin_ctz(hits));
			if (std::memcmp(p + at + 1, needle.data() + 1, m - 2) == 0) {
				return p + at;
			}
			hits &= hits - 1;
		}
	}
#endif
	for (; i + m <= n; i++) {
		const void *at = std::memchr(p + i, needle[0], n - m + 1 - i);
		if (!at) {
			return nullptr;
		}
		i = static_cast<size_t>(static_cast<const char *>(at) - p);
		if (std::memcmp(p + i, needle.data(), m) == 0) {
			return p + i;
		}
	}
	return nullptr;
}

//! Whether the chunk's strings lie one after the other in one buffer, as a plain string segment
//! decodes: the whole chunk can then be searched as one run of bytes.
bool Contiguous(const StringRefs &strings, uint64_t rows) {
	for (uint64_t r = 0; r + 1 < rows; r++) {
		if (strings[r].ptr + strings[r].len != strings[r + 1].ptr) {
			return false;
		}
	}
	return true;
}

//! out[r] = 1 where row r contains `needle`, searching the chunk's bytes as one run: a match that
//! straddles two rows is no row's, and the search resumes one byte after its start.
void SearchRun(const StringRefs &strings, uint64_t rows, const std::string &needle, uint8_t *out) {
	std::memset(out, 0, rows);
	const char *p = strings[0].ptr;
	const char *end = strings[rows - 1].ptr + strings[rows - 1].len;
	uint64_t r = 0;
	while (const char *hit = Find(p, end, needle)) {
		while (strings[r].ptr + strings[r].len <= hit) {
			r++; // hit < end, so some row ends past it
		}
		const char *row_end = strings[r].ptr + strings[r].len;
		if (hit + needle.size() <= row_end) {
			out[r] = 1;
			p = row_end;
			if (++r == rows) {
				break;
			}
		} else {
			p = hit + 1;
		}
	}
}

} // namespace

bool LikePattern::Parse(std::string_view pattern, LikePattern &out) {
	if (pattern.find_first_of("_\\") != std::string_view::npos) {
		return false;
	}
	out = LikePattern();
	out.anchored_start = pattern.empty() || pattern.front() != '%';
	out.anchored_end = pattern.empty() || pattern.back() != '%';
	size_t at = 0;
	while (at <= pattern.size()) {
		size_t next = pattern.find('%', at);
		if (next == std::string_view::npos) {
			next = pattern.size();
		}
		if (next > at) {
			out.segments.emplace_back(pattern.substr(at, next - at));
		}
		at = next + 1;
	}
	return true;
}

LikePattern LikePattern::Literal(std::string text, bool at_start, bool at_end) {
	LikePattern p;
	// An empty text anchors nothing: prefix(s, '') holds for every string, as '%' does.
	p.anchored_start = at_start && !text.empty();
	p.anchored_end = at_end && !text.empty();
	if (!text.empty()) {
		p.segments.push_back(std::move(text));
	}
	return p;
}

bool LikePattern::Matches(const char *s, uint64_t n) const {
	size_t first = 0, last = segments.size();
	uint64_t lo = 0, hi = n;
	if (anchored_start) {
		if (last == 0) {
			return n == 0; // the pattern ''
		}
		auto &head = segments[0];
		if (n < head.size() || std::memcmp(s, head.data(), head.size()) != 0) {
			return false;
		}
		if (anchored_end && last == 1) {
			return n == head.size(); // no `%` at all: equality
		}
		lo = head.size();
		first = 1;
	}
	if (anchored_end && first < last) {
		auto &tail = segments[last - 1];
		if (hi - lo < tail.size() || std::memcmp(s + n - tail.size(), tail.data(), tail.size()) != 0) {
			return false;
		}
		hi = n - tail.size();
		last--;
	}
	// Between the ends, each segment's leftmost match leaves the most room for the next.
	for (size_t k = first; k < last; k++) {
		const char *hit = Find(s + lo, s + hi, segments[k]);
		if (!hit) {
			return false;
		}
		lo = static_cast<uint64_t>(hit - s) + segments[k].size();
	}
	return true;
}

uint64_t MatchStrings(const LikePattern &pattern, bool negate, const DecodedColumn &column, uint64_t rows,
                      const uint8_t *kept, uint8_t *out) {
	if (rows == 0) {
		return 0;
	}
	if (column.all_null) {
		std::memset(out, 0, rows);
		return 0;
	}
	auto &strings = column.strings;
	if (!kept && pattern.IsContains() && Contiguous(strings, rows)) {
		SearchRun(strings, rows, pattern.segments[0], out);
		if (negate) {
			for (uint64_t r = 0; r < rows; r++) {
				out[r] ^= 1;
			}
		}
	} else {
		for (uint64_t r = 0; r < rows; r++) {
			out[r] = (!kept || kept[r]) && pattern.Matches(strings[r].ptr, strings[r].len) != negate;
		}
	}
	if (!column.all_valid) {
		AndValidity(out, column.validity.data(), rows);
	}
	uint64_t held = 0;
	for (uint64_t r = 0; r < rows; r++) {
		held += out[r];
	}
	return held;
}

} // namespace compute
} // namespace vtx
