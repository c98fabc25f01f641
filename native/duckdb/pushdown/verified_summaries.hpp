// Sketches and distinct values are answers, not bounds: a file whose footer carries ones that
// disagree with its rows would give a wrong distinct count with nothing to show for it. Before a
// pushed count(DISTINCT x) or approx_count_distinct(x) uses them, each zone's stored summary is
// checked once against its rows (decoded, hashed with DuckDB's hash); the check is remembered
// for that version of the file (its size and footer checksum), so later queries answer from
// the footer alone. A summary that disagrees is refused with the file named.
#pragma once
#include "../../format/file/metadata.hpp"
#include "../file_io.hpp"
#include "duckdb.hpp"

namespace vortex {

enum class Summary : uint8_t { SKETCH, DISTINCT };

//! Checks the `summary` of every zone of `field` in the file (once per version of the file).
void VerifySummaries(FileSource &source, const vtx::FileMetadata &meta, duckdb::idx_t field, Summary summary,
                     const std::string &path);

} // namespace vortex
