// The DuckDB connection behind a @duckdb/node-api DuckDBConnection's native handle.
#pragma once
#include "duckdb.hpp"

#include <napi.h>

namespace vortex_addon {

//! Throws a TypeError unless `value` is @duckdb/node-bindings' connection handle, and an Error
//! when that connection is closed.
duckdb::Connection &ConnectionOf(const Napi::Value &value);

} // namespace vortex_addon
