// approx_count_distinct from stored sketches. DuckDB's approx_count_distinct keeps a
// HyperLogLog of 64 one-byte registers fed with its own 64-bit hash of each non-NULL value;
// registers merge by max, so per-zone registers merged give exactly DuckDB's registers over the
// same rows, and DuckDB's own HyperLogLog::Count() then gives exactly its answer. The hash is
// DuckDB's and may change between releases: each file records, per column, a fingerprint of
// the hash of its column type, and a sketch is used only where the running DuckDB reproduces it.
#pragma once
#include "../format/column.hpp"
#include "duckdb.hpp"
#include "duckdb/common/types/hyperloglog.hpp"

#include <array>
#include <cstdint>

namespace vortex {

using Sketch = std::array<uint8_t, duckdb::HyperLogLog::M>;

//! Whether vortex_scan's files keep sketches of a column of this type (flat columns).
bool SketchedType(const duckdb::LogicalType &type);

//! DuckDB's hash of a fixed set of values of `type` (those of a fixed list of literals that
//! cast to it), folded into one word: equal in two DuckDB releases only if they hash alike.
//! 0 ("no sketches") where no literal casts to the type (GEOMETRY): nothing would tell its hash.
uint64_t HashFingerprint(duckdb::ClientContext &context, const duckdb::LogicalType &type);

//! Adds rows [offset, offset + count) of `values` that are valid (and `selected`, if given:
//! one byte per row of `values`) to the registers, hashed as approx_count_distinct hashes.
void SketchVector(duckdb::Vector &values, duckdb::idx_t offset, duckdb::idx_t count, const uint8_t *selected,
                  duckdb::HyperLogLog &registers);

//! The same for rows [begin, end) of a decoded chunk of a column of `type` (`selected`, if
//! given, one byte per row of the chunk).
void SketchDecoded(const vtx::DecodedColumn &chunk, const vtx::ColumnType &type, const uint8_t *selected,
                   duckdb::HyperLogLog &registers, uint64_t begin = 0, uint64_t end = ~uint64_t(0));

//! The same for the valid rows of a zone's column as the writer sees it (flat types).
void SketchInput(const duckdb::LogicalType &type, const vtx::ColumnInput &in, duckdb::HyperLogLog &registers);

//! The sketch of a zone's column whose distinct values the writer found: hashing each once
//! gives the registers that every row gives (a register keeps the largest of its values).
Sketch SketchOfDistinct(const duckdb::LogicalType &type, const vtx::ColumnType &column_type,
                        const std::vector<std::string> &distinct);

//! The same from distinct fixed-width values packed end to end (EncodedChunk::distinct_values).
Sketch SketchOfValues(const duckdb::LogicalType &type, const vtx::ColumnType &column_type,
                      const std::vector<uint8_t> &values);

Sketch RegistersOf(const duckdb::HyperLogLog &hll);
void MergeRegisters(duckdb::HyperLogLog &hll, const Sketch &registers);

} // namespace vortex
