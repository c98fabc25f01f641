// What `COPY ... (FORMAT vortex, RETURN_STATS)` reports of each file written, in the shape
// DuckDB's Parquet writer gives it: rows, file and footer size, and per column its stored bytes,
// min and max (as text, where every zone keeps them exactly), NULL count, values (NULLs
// included) and, for floats, whether it holds NaN; nested columns per leaf, as Parquet's.
#pragma once
#include "../../format/file/metadata.hpp"
#include "duckdb.hpp"
#include "duckdb/function/copy_function.hpp"

namespace vortex {

void FillWrittenStatistics(const vtx::FileMetadata &meta, uint64_t file_size,
                           duckdb::CopyFunctionFileStatistics &out);

} // namespace vortex
