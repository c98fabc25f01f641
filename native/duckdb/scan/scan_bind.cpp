#include "scan_bind.hpp"

#include "../file_io.hpp"
#include "../metadata_cache.hpp"
#include "plan_guard.hpp"
#include "schema_union.hpp"
#include "../settings.hpp"
#include "../type_mapping.hpp"
#include "duckdb/common/hive_partitioning.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"

namespace vortex {

using namespace duckdb;

// ---- bind data ----------------------------------------------------------------------

unique_ptr<FunctionData> ScanBindData::Copy() const {
	return make_uniq<ScanBindData>(*this);
}

bool ScanBindData::Equals(const FunctionData &other_p) const {
	auto &o = other_p.Cast<ScanBindData>();
	// Field names matter (they are the output columns); types are compared with `types`.
	bool same_names = fields.size() == o.fields.size();
	for (size_t i = 0; same_names && i < fields.size(); i++) {
		same_names = fields[i].name == o.fields[i].name;
	}
	return same_names && types == o.types && filename_column == o.filename_column && filename_name == o.filename_name &&
	       hive.keys == o.hive.keys && hive_fields == o.hive_fields &&
	       hive.types == o.hive.types && hive.values == o.hive.values && null_filters == o.null_filters &&
	       union_by_name == o.union_by_name && SameFilters(expression_filters, o.expression_filters) &&
	       SamePlannedFiles(files, o.files);
}

LogicalType ScanBindData::ColumnType(idx_t id) const {
	if (id < fields.size()) {
		return types[id];
	}
	if (IsHiveColumn(id)) {
		return hive.types[id - HiveBase()];
	}
	if ((filename_column && id == FilenameIndex()) || id == MultiFileReader::COLUMN_IDENTIFIER_FILENAME) {
		return LogicalType::VARCHAR;
	}
	if (id == MultiFileReader::COLUMN_IDENTIFIER_FILE_INDEX) {
		return LogicalType::UBIGINT;
	}
	if (id == COLUMN_IDENTIFIER_EMPTY) {
		return LogicalType::BOOLEAN;
	}
	return LogicalType::BIGINT; // row id, file_row_number
}

namespace {

//! Partition columns from `key=value` directories, decided by DuckDB's own MultiFileOptions as
//! for read_parquet: whether the paths are partitioned (auto-detected unless hive_partitioning is
//! given), each key's type (hive_types, else DATE, TIMESTAMP or BIGINT where every value casts,
//! else VARCHAR, unless hive_types_autocast is off), and each file's value. A key that names a
//! column of the files replaces that column, in its place, as read_parquet's does: its values are
//! then the paths', and the scan reads the files' columns by name (schema_union.hpp).
void BindHivePartitions(ClientContext &context, MultiFileOptions &options, MultiFileList &list, ScanBindData &bind) {
	options.AutoDetectHivePartitioning(list, context);
	if (!options.hive_partitioning) {
		return;
	}
	std::vector<std::map<string, string>> parsed;
	for (auto &f : bind.files) {
		parsed.push_back(HivePartitioning::Parse(f.path));
	}
	for (auto &p : parsed) {
		bool same = p.size() == parsed[0].size();
		for (auto &kv : parsed[0]) {
			same = same && p.count(kv.first);
		}
		if (!same) {
			throw BinderException("vortex_scan: hive partition mismatch between file \"%s\" and \"%s\": they do not "
			                      "have the same key=value directories", bind.files[0].path,
			                      bind.files[&p - parsed.data()].path);
		}
	}
	if (!options.hive_types_schema.empty()) {
		options.VerifyHiveTypesArePartitions(parsed[0]);
	}
	bind.hive.values.assign(bind.files.size(), {});
	for (auto &kv : parsed[0]) {
		const auto type = options.GetHiveLogicalType(kv.first);
		vector<Value> values;
		for (auto &p : parsed) {
			values.push_back(options.GetHivePartitionValue(p[kv.first], kv.first, context));
		}
		idx_t replaced = kMissingField;
		for (idx_t c = 0; c < bind.fields.size(); c++) {
			if (StringUtil::CIEquals(bind.fields[c].name, kv.first)) {
				replaced = c;
			}
		}
		if (replaced == kMissingField) {
			bind.hive.keys.push_back(kv.first);
			bind.hive.types.push_back(type);
			for (idx_t f = 0; f < bind.files.size(); f++) {
				bind.hive.values[f].push_back(values[f]);
			}
			continue;
		}
		// The file column is no longer read: the scan takes its files' columns through field maps.
		bind.types[replaced] = type;
		if (!ToColumnType(type, bind.fields[replaced].type)) {
			throw BinderException("vortex_scan: hive partition \"%s\" of type %s cannot replace the column of that "
			                      "name", kv.first, type.ToString());
		}
		bind.hive_fields[replaced] = std::move(values);
		bind.uniform = false;
		for (auto &f : bind.files) {
			if (f.field_map.empty()) {
				for (idx_t c = 0; c < bind.fields.size(); c++) {
					f.field_map.push_back(c);
				}
			}
			f.field_map[replaced] = kMissingField;
		}
	}
}

} // namespace

unique_ptr<FunctionData> ScanBind(ClientContext &context, TableFunctionBindInput &input,
                                  vector<LogicalType> &return_types, vector<string> &names) {
	auto result = make_uniq<ScanBindData>();
	result->named_parameters = input.named_parameters;
	auto reader = MultiFileReader::CreateDefault("vortex_scan");
	// The options read_parquet takes for its files, parsed and checked by DuckDB as for Parquet.
	MultiFileOptions options;
	for (auto &kv : input.named_parameters) {
		if (!reader->ParseOption(kv.first, kv.second, options, context)) {
			throw BinderException("vortex_scan: unknown parameter \"%s\"", kv.first);
		}
	}
	result->filename_column = options.filename;
	result->filename_name = options.filename_column;
	result->union_by_name = options.union_by_name;
	auto list = reader->CreateFileList(context, input.inputs[0]);
	auto all = list->GetAllFiles();
	const auto cache_limit = MetadataCacheLimit(context);
	for (auto &file : all) {
		auto source = make_uniq<FileSource>(context, file.path);
		auto meta = GetMetadata(*source, cache_limit);
		auto held = all.size() <= kFilesHeldOpen ? std::make_shared<HeldSource>(std::move(source)) : nullptr;
		result->files.push_back(ScanFile {file.path, std::move(meta), std::move(held), {}});
	}
	if (result->files.empty()) {
		throw InvalidInputException("vortex_scan: no files to read");
	}
	UnifySchemas(*result);
	for (auto &f : result->files) {
		result->total_rows += f.meta->total_rows;
	}
	BindHivePartitions(context, options, *list, *result);
	for (idx_t c = 0; c < result->fields.size(); c++) {
		return_types.push_back(result->types[c]);
		names.push_back(result->fields[c].name);
	}
	if (result->filename_column) {
		for (auto &name : names) {
			if (StringUtil::CIEquals(name, result->filename_name)) {
				// read_parquet's words, for the same mistake.
				throw BinderException("Option filename adds column \"%s\", but a column with this name is also in the "
				                      "file. Try setting a different name: filename='<filename column name>'",
				                      result->filename_name);
			}
		}
		return_types.push_back(LogicalType::VARCHAR);
		names.push_back(result->filename_name);
	}
	for (idx_t k = 0; k < result->hive.keys.size(); k++) {
		return_types.push_back(result->hive.types[k]);
		names.push_back(result->hive.keys[k]);
	}
	return std::move(result);
}

} // namespace vortex
