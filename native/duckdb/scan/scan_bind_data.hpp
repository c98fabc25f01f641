// What vortex_scan knows after binding: the files and their common schema.
#pragma once
#include "../../format/metadata.hpp"
#include "../file_io.hpp"
#include "duckdb.hpp"

#include <memory>
#include <mutex>

namespace vortex {

//! The handle a footer was read from at bind time, handed to the execution that follows: it
//! then reads the very version it was planned with, even if the file is replaced meanwhile.
//! Taken once, so a prepared statement (bound again per execution) holds no file between runs.
class HeldSource {
public:
	explicit HeldSource(std::unique_ptr<FileSource> source) : source(std::move(source)) {
	}
	std::unique_ptr<FileSource> Take() {
		std::lock_guard<std::mutex> guard(lock);
		return std::move(source);
	}

private:
	std::mutex lock;
	std::unique_ptr<FileSource> source;
};

//! A scan column that a file of a `union_by_name` scan does not have (read as NULL).
constexpr duckdb::idx_t kMissingField = duckdb::DConstants::INVALID_INDEX;

struct ScanFile {
	std::string path;
	std::shared_ptr<const vtx::FileMetadata> meta; //! as seen at bind time
	std::shared_ptr<HeldSource> held;              //! null for scans of many files
	//! Per scan column, this file's field holding it (kMissingField: none); empty when the scan
	//! is uniform (every column at its own position, of the scan's type). See schema_union.hpp.
	std::vector<duckdb::idx_t> field_map;
};

//! Scans of up to this many files keep the handles their footers were read from.
constexpr duckdb::idx_t kFilesHeldOpen = 64;

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
	bool union_by_name = false;
	//! Every file has the scan's columns at the same positions with the same types (schema_union.hpp).
	//! Otherwise files are read through their field_map, cast where types differ, no statistics
	//! are reported and no aggregate is pushed.
	bool uniform = true;
	duckdb::idx_t total_rows = 0;
	//! `field IS [NOT] NULL` filters that DuckDB keeps above the scan (it makes no table filter
	//! of them): used only to skip zones whose null counts prove no row passes.
	std::vector<std::pair<duckdb::idx_t, bool>> null_filters; //! field, true for IS NULL
	//! Why the optimizer left an aggregate over this scan to DuckDB, where a user would expect it
	//! pushed (EXPLAIN's "Not Pushed"); empty otherwise.
	std::string not_pushed;

	duckdb::idx_t FilenameIndex() const {
		return fields.size() + hive.keys.size();
	}
	//! The field of file `file` that scan column `column` reads (kMissingField: the file lacks it).
	duckdb::idx_t FileField(duckdb::idx_t file, duckdb::idx_t column) const {
		return files[file].field_map.empty() ? column : files[file].field_map[column];
	}
	bool IsHiveColumn(duckdb::idx_t id) const {
		return id >= fields.size() && id < fields.size() + hive.keys.size();
	}
	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
	//! False, as for read_parquet: a prepared statement is bound again on every execution, so
	//! it sees the files (and the glob's matches) as they are then, not as they were prepared.
	bool SupportStatementCache() const override {
		return false;
	}
};

} // namespace vortex
