#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_scan(path | [paths] | glob, filename := false)
//! vortex_scan, or under another name the same function (read_vortex, as Vortex's own DuckDB
//! extension names it, and as read_parquet / parquet_scan are one function).
duckdb::TableFunctionSet GetVortexScanFunctions(const std::string &name);
//! Whether a plan's table function is this scan, under any of its names.
bool IsVortexScan(const duckdb::TableFunction &function);
duckdb::TableFunction GetVortexScanFunction();

} // namespace vortex
