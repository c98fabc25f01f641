#pragma once
#include "duckdb.hpp"

namespace vortex {

//! COPY ... TO 'f.vtx' (FORMAT vortex [, ROW_GROUP_SIZE n] [, COMPRESSION zstd|lz4|none] [, COMPRESSION_LEVEL n])
//! Registered as "vortex" and as "vtx" (the extension COPY falls back to when FORMAT is absent).
duckdb::CopyFunction GetVortexCopyFunction(const std::string &name);

bool IsVortexCopyFunction(const std::string &name);

} // namespace vortex
