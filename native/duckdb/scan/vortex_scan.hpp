#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_scan(path | [paths] | glob, filename := false)
duckdb::TableFunctionSet GetVortexScanFunctions();
duckdb::TableFunction GetVortexScanFunction();

} // namespace vortex
