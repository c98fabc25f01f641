// DuckDB logical types <-> .vtx column types, and zone-statistic bytes <-> DuckDB Values.
#pragma once
#include "../format/types.hpp"
#include "duckdb.hpp"

namespace vortex {

//! False when the type cannot be stored (LIST, STRUCT, MAP, ...).
bool ToColumnType(const duckdb::LogicalType &type, vtx::ColumnType &out);
duckdb::LogicalType ToLogicalType(const vtx::ColumnType &type);
//! A value of `type` from its raw little-endian bytes (as kept in zone statistics).
duckdb::Value RawToValue(const duckdb::LogicalType &type, const std::string &raw);
duckdb::hugeint_t ToHugeint(vtx::int128 v);
//! TINYINT to BIGINT and UTINYINT to UBIGINT (not HUGEINT, not DECIMAL).
bool IsPlainInteger(const duckdb::LogicalType &type);
//! FLOAT or DOUBLE.
bool IsFloatType(const duckdb::LogicalType &type);

} // namespace vortex
