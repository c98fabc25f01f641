// vortex_scan's bind: the files (a path, a list or a glob), their common schema, hive
// partition columns and the optional `filename` column.
#pragma once
#include "scan_bind_data.hpp"

namespace vortex {

duckdb::unique_ptr<duckdb::FunctionData> ScanBind(duckdb::ClientContext &context, duckdb::TableFunctionBindInput &input,
                                                  duckdb::vector<duckdb::LogicalType> &return_types,
                                                  duckdb::vector<std::string> &names);

} // namespace vortex
