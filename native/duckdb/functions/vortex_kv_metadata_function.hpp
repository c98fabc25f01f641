#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_kv_metadata(path | glob | [paths]): the key-value pairs written with
//! `COPY ... (FORMAT vortex, KV_METADATA {...})`, one row per pair and file, as
//! parquet_kv_metadata gives Parquet's: file_name, key and value (BLOBs, as written).
duckdb::TableFunctionSet GetVortexKeyValueMetadataFunctions();

} // namespace vortex
