// What vortex_scan knows after binding: the files, their common schema, and the zone
// predicates gathered from the query's filters.
#pragma once
#include "../format/metadata.hpp"
#include "duckdb.hpp"

#include <memory>

namespace vortex {

//! A predicate on one column that can rule a whole zone out from its statistics.
struct ZonePredicate {
	duckdb::idx_t field;
	duckdb::ExpressionType op; //! COMPARE_* or OPERATOR_IS_NULL / OPERATOR_IS_NOT_NULL
	duckdb::Value constant;
	std::string ToString(const std::string &column) const;
};

struct ScanFile {
	std::string path;
	std::shared_ptr<const vtx::FileMetadata> meta; //! as seen at bind time
};

//! Columns taken from `key=value` directories in the paths, as DuckDB does for Parquet.
struct HivePartitions {
	std::vector<std::string> keys;
	duckdb::vector<duckdb::LogicalType> types;
	std::vector<duckdb::vector<duckdb::Value>> values; //! per file, per key
};

//! Output columns: the file's fields, then hive partition columns, then `filename`.
struct ScanBindData : public duckdb::TableFunctionData {
	std::vector<ScanFile> files;
	std::vector<vtx::Field> fields;
	duckdb::vector<duckdb::LogicalType> types; //! DuckDB type per field
	HivePartitions hive;
	bool filename_column = false;
	duckdb::idx_t total_rows = 0;
	std::vector<ZonePredicate> predicates;

	duckdb::idx_t FilenameIndex() const {
		return fields.size() + hive.keys.size();
	}
	bool IsHiveColumn(duckdb::idx_t id) const {
		return id >= fields.size() && id < fields.size() + hive.keys.size();
	}
	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
};

} // namespace vortex
