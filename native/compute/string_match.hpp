// Matching a zone's strings against a LIKE pattern whose only wildcard is `%` (which is what
// `contains`, `prefix`, `suffix` and most dashboard LIKEs are), byte by byte: UTF-8 is
// self-synchronising, so a byte match of valid UTF-8 is a character match. A `%x%` pattern over a
// plain string chunk is searched once across the chunk's contiguous bytes rather than row by row:
// a rare needle then costs one pass of memchr/memcmp over the segment, not a call per row.
#pragma once
#include "../format/column.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vtx {
namespace compute {

struct LikePattern {
	bool anchored_start = true; //! no leading `%`: the first segment is a prefix
	bool anchored_end = true;   //! no trailing `%`: the last segment is a suffix
	std::vector<std::string> segments;

	//! `pattern` read as LIKE without an escape character; false where it holds `_` (a character,
	//! not a byte) or a backslash (so no escaping convention is assumed).
	static bool Parse(std::string_view pattern, LikePattern &out);
	//! `text` taken literally (`%` and `_` in it are characters): contains (neither end anchored),
	//! prefix (`at_start`) or suffix (`at_end`).
	static LikePattern Literal(std::string text, bool at_start, bool at_end);

	bool Matches(const char *s, uint64_t n) const;
	//! `%x%` with one non-empty segment: searched across a chunk's bytes.
	bool IsContains() const {
		return !anchored_start && !anchored_end && segments.size() == 1;
	}
};

//! out[i] = 1 where row i of `column` (a string chunk of `rows` rows decoded in full, not
//! dictionary-coded) is valid and matches `pattern` (does not match, with `negate`), else 0. With
//! `kept`, only rows whose byte is nonzero are looked at; the others get 0. Returns the number of
//! rows set.
uint64_t MatchStrings(const LikePattern &pattern, bool negate, const DecodedColumn &column, uint64_t rows,
                      const uint8_t *kept, uint8_t *out);

} // namespace compute
} // namespace vtx
