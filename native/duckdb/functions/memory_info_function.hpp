#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_cache_info(): the footers in the metadata cache, most recently used first
//! (path, file_size, zones, bytes). Their bytes count against vortex_metadata_cache_size.
duckdb::TableFunction GetVortexCacheInfoFunction();
//! vortex_buffer_info(): one row: bytes held by idle threads' reusable buffers, the number
//! of scan sources and COPYs in flight, and the C heap's bytes in use and free (glibc's
//! mallinfo2; NULL elsewhere). Free bytes are not necessarily resident.
duckdb::TableFunction GetVortexBufferInfoFunction();

} // namespace vortex
