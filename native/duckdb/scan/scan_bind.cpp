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
	return same_names && types == o.types && filename_column == o.filename_column && hive.keys == o.hive.keys &&
	       hive.types == o.hive.types && hive.values == o.hive.values && null_filters == o.null_filters &&
	       union_by_name == o.union_by_name && SameFilters(expression_filters, o.expression_filters) &&
	       SamePlannedFiles(files, o.files);
}

LogicalType ScanBindData::ColumnType(idx_t id) const {
	if (id < fields.size()) {
		return types[id];
	}
	if (IsHiveColumn(id)) {
		return hive.types[id - fields.size()];
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

//! The narrowest of BIGINT, DATE, TIMESTAMP that holds every value of a partition key, else VARCHAR.
LogicalType HiveType(ClientContext &context, const std::string &key, const std::vector<std::string> &values) {
	for (auto &candidate : {LogicalType::BIGINT, LogicalType::DATE, LogicalType::TIMESTAMP}) {
		bool fits = true;
		for (auto &v : values) {
			if (StringUtil::CIEquals(v, "NULL") || v.empty()) {
				continue;
			}
			Value out;
			string error;
			if (!Value(HivePartitioning::Unescape(v)).TryCastAs(context, candidate, out, &error, true)) {
				fits = false;
				break;
			}
		}
		if (fits) {
			return candidate;
		}
	}
	return LogicalType::VARCHAR;
}

//! Hive partitions when asked for, or by default when every path has the same `key=value` keys.
void BindHivePartitions(ClientContext &context, optional_ptr<const Value> option, ScanBindData &bind) {
	if (option && !BooleanValue::Get(option->DefaultCastAs(LogicalType::BOOLEAN))) {
		return;
	}
	std::vector<std::map<string, string>> parsed;
	for (auto &f : bind.files) {
		parsed.push_back(HivePartitioning::Parse(f.path));
	}
	bool consistent = !parsed.empty() && !parsed[0].empty();
	for (auto &p : parsed) {
		consistent = consistent && p.size() == parsed[0].size();
		for (auto &kv : parsed[0]) {
			consistent = consistent && p.count(kv.first);
		}
	}
	if (!consistent) {
		if (option) {
			throw InvalidInputException("vortex_scan: hive_partitioning needs every path to have the same key=value "
			                            "directories (first file: \"%s\")", bind.files[0].path);
		}
		return;
	}
	for (auto &kv : parsed[0]) {
		for (auto &field : bind.fields) {
			if (StringUtil::CIEquals(field.name, kv.first)) {
				throw InvalidInputException("vortex_scan: hive partition \"%s\" has the name of a column of \"%s\"",
				                            kv.first, bind.files[0].path);
			}
		}
		std::vector<std::string> values;
		for (auto &p : parsed) {
			values.push_back(p[kv.first]);
		}
		bind.hive.keys.push_back(kv.first);
		bind.hive.types.push_back(HiveType(context, kv.first, values));
	}
	for (auto &p : parsed) {
		vector<Value> row;
		for (idx_t k = 0; k < bind.hive.keys.size(); k++) {
			row.push_back(HivePartitioning::GetValue(context, bind.hive.keys[k], p[bind.hive.keys[k]], bind.hive.types[k]));
		}
		bind.hive.values.push_back(std::move(row));
	}
}

} // namespace

unique_ptr<FunctionData> ScanBind(ClientContext &context, TableFunctionBindInput &input,
                                  vector<LogicalType> &return_types, vector<string> &names) {
	auto result = make_uniq<ScanBindData>();
	result->named_parameters = input.named_parameters;
	optional_ptr<const Value> hive_option;
	for (auto &kv : input.named_parameters) {
		if (kv.first == "filename") {
			result->filename_column = BooleanValue::Get(kv.second.DefaultCastAs(LogicalType::BOOLEAN));
		} else if (kv.first == "hive_partitioning") {
			hive_option = &kv.second;
		} else if (kv.first == "union_by_name") {
			result->union_by_name = BooleanValue::Get(kv.second.DefaultCastAs(LogicalType::BOOLEAN));
		}
	}
	auto reader = MultiFileReader::CreateDefault("vortex_scan");
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
	for (idx_t c = 0; c < result->fields.size(); c++) {
		return_types.push_back(result->types[c]);
		names.push_back(result->fields[c].name);
	}
	BindHivePartitions(context, hive_option, *result);
	for (idx_t k = 0; k < result->hive.keys.size(); k++) {
		return_types.push_back(result->hive.types[k]);
		names.push_back(result->hive.keys[k]);
	}
	if (result->filename_column) {
		return_types.push_back(LogicalType::VARCHAR);
		names.push_back("filename");
	}
	return std::move(result);
}

} // namespace vortex
