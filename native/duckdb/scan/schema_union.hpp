// How the files of one vortex_scan combine into its columns, as read_parquet's MultiFileReader
// combines Parquet files:
//   - by default, the first file's columns; each later file's columns are found by name
//     (case-insensitively, in any order; extra ones are ignored) and cast to the first file's
//     types; a column missing from a later file is an error naming it;
//   - with `union_by_name := true`, the union of all files' columns in order of first appearance,
//     each of the type DuckDB's UnionByName::CombineUnionTypes gives (LogicalType::ForceMaxLogicalType),
//     NULL in the files that lack it.
// A scan whose every file has the scan's columns at the same positions with the same types is
// `uniform`: nothing changes for it. Otherwise the scan reads each file's own columns, emits a
// NULL constant for a missing one and DuckDB's cast for a widened one, evaluates every table
// filter on the emitted (cast) values, reports no statistics, and the optimizer leaves its
// aggregates to DuckDB (pushdown_optimizer.cpp), so every answer is DuckDB's own.
#pragma once
#include "../../format/column.hpp"
#include "scan_bind_data.hpp"

namespace vortex {

//! Sets bind.fields, bind.types, each file's field_map and bind.uniform from the files' footers;
//! errors name the function `fn` as the query called it.
void UnifySchemas(const std::string &fn, ScanBindData &bind);

//! Rows [offset, offset + count) of scan column `column` of file `file` (decoded in `chunk`) into
//! `out`, cast from the file's type to the scan's where they differ.
void EmitFileColumn(duckdb::ClientContext &context, const ScanBindData &bind, duckdb::idx_t file, duckdb::idx_t column,
                    const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner,
                    duckdb::idx_t offset, duckdb::idx_t count, duckdb::Vector &out);

//! File `file` of a non-uniform scan, ready to read: the handle held since binding, else the file
//! opened again, which must be the planned version or keep its planned schema and row bound.
struct UnionFile {
	std::unique_ptr<FileSource> source;
	std::shared_ptr<const vtx::FileMetadata> meta;
};
UnionFile OpenUnionFile(duckdb::ClientContext &context, const std::vector<ScanFile> &planned, duckdb::idx_t file);

} // namespace vortex
