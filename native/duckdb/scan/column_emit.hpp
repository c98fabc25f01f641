// Hands one vector's worth of a decoded column chunk to DuckDB.
#pragma once
#include "../../format/column.hpp"
#include "duckdb.hpp"

#include <memory>

namespace vortex {

//! Fills `out` with rows [offset, offset + count) of `chunk` (offset a multiple of 64).
//! Fixed-width values are referenced, not copied: the vector points into the chunk, which
//! `owner` keeps alive through the vector's auxiliary buffer. Validity is copied word by word.
//! Nested values are copied into DuckDB's STRUCT, LIST, MAP, ARRAY and UNION vectors.
void EmitColumn(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, duckdb::idx_t offset,
                duckdb::idx_t count, const vtx::ColumnType &type, duckdb::Vector &out);

//! The same for a flat chunk whose values were deferred (DecodedColumn::deferred): decoded into
//! `out`'s own buffer. Throws vtx::FormatError where the values are malformed.
void EmitDeferredColumn(const vtx::DecodedColumn &chunk, duckdb::idx_t offset, duckdb::idx_t count,
                        const vtx::ColumnType &type, duckdb::Vector &out);

} // namespace vortex
