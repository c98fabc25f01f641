// Hands one vector's worth of a decoded column chunk to DuckDB.
#pragma once
#include "../format/column.hpp"
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
//! `out`'s own buffer, or, where they lie in a small dictionary or in long runs, handed on as a
//! dictionary vector over those entries. Throws vtx::FormatError where the values are malformed.
void EmitDeferredColumn(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner,
                        duckdb::idx_t offset, duckdb::idx_t count, const vtx::ColumnType &type, duckdb::Vector &out);

//! Fills `out` with the `selected` rows offset + sel[i] of `chunk` only, as a vector of
//! `selected` rows: where a filter kept few rows of a vector, its other rows are neither
//! decoded nor handed on (a selection DuckDB would otherwise follow through every operator).
//! False, with `out` untouched, for nested types: the caller emits and slices those.
bool EmitSelectedRows(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner,
                      duckdb::idx_t offset, const duckdb::SelectionVector &sel, duckdb::idx_t selected,
                      const vtx::ColumnType &type, duckdb::Vector &out);

} // namespace vortex
