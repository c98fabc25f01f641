// vortex_scan in a serialized plan (PRAGMA verify_serializer, plan copies): the files it was
// bound to, its named parameters, and what it took out of the plan — the filter expressions
// (expression_filter.hpp), which are no longer anywhere else in the plan. Deserializing binds
// the same files again, and refuses a file whose schema changed since.
#pragma once
#include "duckdb.hpp"
#include "duckdb/common/serializer/deserializer.hpp"
#include "duckdb/common/serializer/serializer.hpp"

namespace vortex {

void ScanSerialize(duckdb::Serializer &s, const duckdb::optional_ptr<duckdb::FunctionData> bind_data,
                   const duckdb::TableFunction &function);
duckdb::unique_ptr<duckdb::FunctionData> ScanDeserialize(duckdb::Deserializer &d, duckdb::TableFunction &function);

} // namespace vortex
