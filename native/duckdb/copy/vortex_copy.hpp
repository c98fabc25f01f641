#pragma once
#include "duckdb.hpp"

namespace duckdb {
class LogicalCopyToFile;
}

namespace vortex {

//! COPY ... TO 'f.vtx' (FORMAT vortex [, ROW_GROUP_SIZE n] [, COMPRESSION zstd|lz4|none] [, COMPRESSION_LEVEL n])
//! Registered as "vortex" and as "vtx" (the extension COPY falls back to when FORMAT is absent).
duckdb::CopyFunction GetVortexCopyFunction(const std::string &name);

bool IsVortexCopyFunction(const std::string &name);

//! A vortex COPY to one file: not partitioned, rotated (FILE_SIZE_BYTES, ROW_GROUPS_PER_FILE) nor
//! per thread.
bool IsVortexOneFileCopy(const duckdb::LogicalCopyToFile &copy);

//! Plans `copy` (a vortex COPY) to be fed by one thread, in order, its zones encoded on DuckDB's
//! threads (ordered_zone_encoder.hpp) instead of through DuckDB's batch collections.
void PlanEncodingOnTasks(duckdb::LogicalCopyToFile &copy);

} // namespace vortex
