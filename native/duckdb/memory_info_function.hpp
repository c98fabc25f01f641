#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_buffer_info(): one row: bytes held by idle threads' reusable buffers, and the
//! number of scan sources and COPYs in flight.
duckdb::TableFunction GetVortexBufferInfoFunction();

} // namespace vortex
