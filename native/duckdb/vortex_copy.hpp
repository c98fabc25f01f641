#pragma once
#include "duckdb.hpp"

namespace vortex {

//! COPY ... TO 'f.vtx' (FORMAT vortex [, ROW_GROUP_SIZE n] [, COMPRESSION zstd|lz4|none] [, COMPRESSION_LEVEL n])
duckdb::CopyFunction GetVortexCopyFunction();

} // namespace vortex
