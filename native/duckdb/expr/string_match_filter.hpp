// Filters that match one VARCHAR column against a constant pattern — `contains(s, 'x')`,
// `prefix`, `suffix`, `s LIKE '%x%'` and their NOTs — evaluated on a zone's plain string rows by
// native/compute's matcher (compute/string_match.hpp) rather than by DuckDB's executor a vector at
// a time: no string vector is built for the filter, and a `%x%` is searched across the segment's
// bytes in one pass. Patterns with `_`, an escape, ILIKE, collations and regexps are left to
// DuckDB's executor. A NULL string fails each of them, as the function's NULL fails the filter.
#pragma once
#include "../../compute/string_match.hpp"
#include "../../format/column.hpp"
#include "duckdb.hpp"

#include <memory>

namespace vortex {

class StringMatchFilter {
public:
	//! For a filter reading one column as input 0; null where it has no such form.
	static std::unique_ptr<StringMatchFilter> Plan(const duckdb::Expression &filter);

	//! Whether `column` (a zone's decoded rows) is one the matcher reads: plain strings, every
	//! row decoded. Dictionary-coded chunks are decided once per entry elsewhere.
	static bool Applies(const vtx::DecodedColumn &column, uint64_t rows);

	//! As compute::MatchStrings: one byte per row into `out`; returns the rows that hold.
	uint64_t Evaluate(const vtx::DecodedColumn &column, uint64_t rows, const uint8_t *kept, uint8_t *out) const;

private:
	StringMatchFilter(vtx::compute::LikePattern pattern, bool negate) : pattern(std::move(pattern)), negate(negate) {
	}

	vtx::compute::LikePattern pattern;
	bool negate;
};

} // namespace vortex
