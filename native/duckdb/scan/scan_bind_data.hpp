// What vortex_scan knows after binding: the files and their common schema.
#pragma once
#include "../../format/file/metadata.hpp"
#include "../file_io.hpp"
#include "../expr/expression_filter.hpp"
#include "duckdb.hpp"

#include <map>
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
	//! What the file list (a glob's listing) knew of the file: size, ETag, last-modified. Every
	//! open of the file passes it on, as read_parquet does, so that an object store is not asked
	//! again (a HEAD per open). For a remote file named by path, what the bind's open found out;
	//! null for a local file named by path.
	duckdb::shared_ptr<duckdb::ExtendedOpenFileInfo> listed;

	//! The file as DuckDB's FileSystem opens it: the path with the listing's information.
	duckdb::OpenFileInfo Info() const {
		duckdb::OpenFileInfo info(path);
		info.extended_info = listed;
		return info;
	}
};

//! Scans of up to this many files keep the handles their footers were read from.
constexpr duckdb::idx_t kFilesHeldOpen = 64;

//! Columns taken from `key=value` directories in the paths, as DuckDB does for Parquet.
struct HivePartitions {
	std::vector<std::string> keys;
	duckdb::vector<duckdb::LogicalType> types;
	std::vector<duckdb::vector<duckdb::Value>> values; //! per file, per key
};

//! The columns of a scan that hold one value per file: partition keys and the file name (as the
//! `filename` column or the virtual one).
struct FileColumns {
	size_t field_count = 0; //! column ids below it are file columns; `filename`, then partition keys follow
	HivePartitions hive;    //! values per file of the reader's file list
	bool filename_column = false;
	//! The value of `column` in file `file` (at `path`); false when it is not such a column.
	bool Constant(duckdb::idx_t column, duckdb::idx_t file, const std::string &path, duckdb::Value &out) const;
};

//! Output columns: the file's fields, then `filename`, then hive partition columns.
struct ScanBindData : public duckdb::TableFunctionData {
	std::vector<ScanFile> files;
	std::vector<vtx::Field> fields;
	duckdb::vector<duckdb::LogicalType> types; //! DuckDB type per field
	HivePartitions hive;
	//! Columns of the files that a partition key of the same name replaces, as read_parquet
	//! does: per such column, its value in each file. The scan is then not uniform.
	std::map<duckdb::idx_t, duckdb::vector<duckdb::Value>> hive_fields;
	bool filename_column = false;
	std::string filename_name = "filename"; //! its name: `filename := 'name'`
	//! `file_row_number := true`: a BIGINT column right after the files' columns, as read_parquet's.
	bool row_number_column = false;
	bool union_by_name = false;
	//! Every file has the scan's columns at the same positions with the same types (schema_union.hpp).
	//! Otherwise files are read through their field_map, cast where types differ, no statistics
	//! are reported and no aggregate is pushed.
	bool uniform = true;
	duckdb::idx_t total_rows = 0;
	//! `field IS [NOT] NULL` filters that DuckDB keeps above the scan (it makes no table filter
	//! of them): used only to skip zones whose null counts prove no row passes.
	std::vector<std::pair<duckdb::idx_t, bool>> null_filters; //! field, true for IS NULL
	//! Filters taken out of DuckDB's plan (pushdown_complex_filter): they are no longer DuckDB's
	//! to apply, so every reader of this scan applies them exactly (expression_filter.hpp).
	std::vector<ExpressionFilter> expression_filters;
	//! Why the optimizer left an aggregate over this scan to DuckDB, where a user would expect it
	//! pushed (EXPLAIN's "Not Pushed"); empty otherwise.
	std::string not_pushed;
	//! The bind's named parameters, for a serialized plan to bind the same files again.
	duckdb::named_parameter_map_t named_parameters;

	//! Output columns are ordered as read_parquet's: the files' columns, `file_row_number`,
	//! `filename`, partition keys.
	duckdb::idx_t FilenameIndex() const {
		return fields.size() + (row_number_column ? 1 : 0);
	}
	duckdb::idx_t HiveBase() const {
		return FilenameIndex() + (filename_column ? 1 : 0);
	}
	//! The row's number within its file: the `file_row_number := true` column or the virtual one.
	bool IsRowNumberColumn(duckdb::idx_t id) const {
		return (row_number_column && id == fields.size()) ||
		       id == duckdb::MultiFileReader::COLUMN_IDENTIFIER_FILE_ROW_NUMBER;
	}
	//! The field of file `file` that scan column `column` reads (kMissingField: the file lacks it).
	duckdb::idx_t FileField(duckdb::idx_t file, duckdb::idx_t column) const {
		return files[file].field_map.empty() ? column : files[file].field_map[column];
	}
	bool IsHiveColumn(duckdb::idx_t id) const {
		return id >= HiveBase() && id < HiveBase() + hive.keys.size();
	}
	//! The type of an output column: a field, a partition key, `filename`, or a virtual column.
	duckdb::LogicalType ColumnType(duckdb::idx_t id) const;
	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
	//! False, as for read_parquet: a prepared statement is bound again on every execution, so
	//! it sees the files (and the glob's matches) as they are then, not as they were prepared.
	bool SupportStatementCache() const override {
		return false;
	}
};

} // namespace vortex
