#include "scan_bind.hpp"

#include "../file_io.hpp"
#include "../file_tasks.hpp"
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
	       row_number_column == o.row_number_column &&
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
	if (IsRowNumberColumn(id)) {
		return LogicalType::BIGINT;
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

//! Makes the file column `replaced` take its values from the paths: a partition key of the same
//! name replaces it, in its place, as in read_parquet. The files' own column is no longer read,
//! so the scan reads its files through field maps (schema_union.hpp).
void ReplaceWithPartition(const string &fn, ScanBindData &bind, idx_t replaced, const string &key,
                          const LogicalType &type, vector<Value> values) {
	bind.types[replaced] = type;
	if (!ToColumnType(type, bind.fields[replaced].type)) {
		throw BinderException("%s: hive partition \"%s\" of type %s cannot replace the column of that name", fn, key,
		                      type.ToString());
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

//! The `filename` and partition-key columns, as DuckDB's MultiFileReader adds them for
//! read_parquet (`BindOptions`: their order, their types, a key replacing a file column of its
//! name, the errors for clashing names and mismatched directories), and each file's values.
void BindFileColumns(const string &fn, ClientContext &context, MultiFileReader &reader, MultiFileOptions &options,
                     MultiFileList &list, ScanBindData &bind, vector<LogicalType> &return_types,
                     vector<string> &names) {
	options.AutoDetectHivePartitioning(list, context);
	MultiFileReaderBindData columns;
	reader.BindOptions(options, list, return_types, names, columns);
	bind.filename_column = columns.filename_idx.IsValid();
	bind.filename_name = options.filename_column;
	if (columns.hive_partitioning_indexes.empty()) {
		return;
	}
	vector<std::map<string, string>> parsed;
	for (auto &f : bind.files) {
		parsed.push_back(HivePartitioning::Parse(f.path));
	}
	bind.hive.values.assign(bind.files.size(), {});
	for (auto &key : columns.hive_partitioning_indexes) {
		const auto index = key.index;
		vector<Value> values;
		for (auto &p : parsed) {
			values.push_back(options.GetHivePartitionValue(p[key.value], key.value, context));
		}
		if (bind.filename_column && index == bind.FilenameIndex()) {
			throw BinderException("%s: hive partition \"%s\" has the name of the filename column; set "
			                      "another name with filename := '<name>'",
			                      fn, key.value);
		}
		if (bind.row_number_column && index == bind.fields.size()) {
			throw BinderException("%s: hive partition \"%s\" has the name of the file_row_number column", fn,
			                      key.value);
		}
		if (index < bind.fields.size()) {
			ReplaceWithPartition(fn, bind, index, key.value, return_types[index], std::move(values));
			continue;
		}
		if (index != bind.HiveBase() + bind.hive.keys.size()) {
			// BindOptions appends new keys after the columns before them; anything else would
			// misplace the values.
			throw BinderException("%s: hive partition \"%s\" cannot be placed after the scan's columns", fn,
			                      key.value);
		}
		bind.hive.keys.push_back(key.value);
		bind.hive.types.push_back(return_types[index]);
		for (idx_t f = 0; f < bind.files.size(); f++) {
			bind.hive.values[f].push_back(values[f]);
		}
	}
}

} // namespace

unique_ptr<FunctionData> ScanBind(ClientContext &context, TableFunctionBindInput &input,
                                  vector<LogicalType> &return_types, vector<string> &names) {
	// Errors name the function as the query does: vortex_scan or read_vortex.
	const auto &fn = input.table_function.name;
	auto result = make_uniq<ScanBindData>();
	result->named_parameters = input.named_parameters;
	auto reader = MultiFileReader::CreateDefault(fn);
	// The options read_parquet takes for its files, parsed and checked by DuckDB as for Parquet.
	MultiFileOptions options;
	for (auto &kv : input.named_parameters) {
		if (StringUtil::Lower(kv.first) == "file_row_number") {
			// read_parquet's option (a Parquet one, not MultiFileReader's).
			if (kv.second.IsNull()) {
				throw BinderException("Cannot use NULL as argument to file_row_number");
			}
			result->row_number_column = BooleanValue::Get(kv.second.DefaultCastAs(LogicalType::BOOLEAN));
			continue;
		}
		if (!reader->ParseOption(kv.first, kv.second, options, context)) {
			throw BinderException("%s: unknown parameter \"%s\"", fn, kv.first);
		}
	}
	result->union_by_name = options.union_by_name;
	auto list = reader->CreateFileList(context, input.inputs[0]);
	auto all = list->GetAllFiles();
	const auto cache_limit = MetadataCacheLimit(context);
	// Footers are read side by side (an object store's request each), into their file's place: the
	// files keep the list's order, and an error names the first bad file in it.
	result->files.resize(all.size());
	ForEachFile(context, all.size(), [&](idx_t i) {
		// The listing's size and ETag go with the path: no HEAD where the glob knew the file.
		auto source = make_uniq<FileSource>(context, all[i]);
		auto meta = GetMetadata(*source, cache_limit);
		auto listed = all[i].extended_info;
		if (!listed && source->Remote()) {
			// A path the list named without a listing: what this open found out (a HEAD) goes with it
			// to the file's later opens (a scan's above 64 files, its threads', a union's), as a
			// listing's would, rather than a HEAD each.
			listed = make_shared_ptr<ExtendedOpenFileInfo>();
			listed->options.emplace("file_size", Value::BIGINT(static_cast<int64_t>(source->Size())));
			listed->options.emplace("last_modified", Value::TIMESTAMP(source->Version().last_modified));
			if (!source->Version().tag.empty()) {
				listed->options.emplace("etag", Value(source->Version().tag));
			}
		}
		auto held = all.size() <= kFilesHeldOpen ? std::make_shared<HeldSource>(std::move(source)) : nullptr;
		result->files[i] = ScanFile {all[i].path, std::move(meta), std::move(held), {}, std::move(listed)};
	});
	if (result->files.empty()) {
		throw InvalidInputException("%s: no files to read", fn);
	}
	UnifySchemas(fn, *result);
	for (auto &f : result->files) {
		result->total_rows += f.meta->total_rows;
	}
	for (idx_t c = 0; c < result->fields.size(); c++) {
		return_types.push_back(result->types[c]);
		names.push_back(result->fields[c].name);
		if (result->row_number_column && StringUtil::CIEquals(result->fields[c].name, "file_row_number")) {
			throw BinderException("%s: the files have a column named file_row_number; the file_row_number "
			                      "option cannot add another (\"%s\")",
			                      fn, result->files[0].path);
		}
	}
	if (result->row_number_column) {
		return_types.push_back(LogicalType::BIGINT);
		names.push_back("file_row_number");
	}
	BindFileColumns(fn, context, *reader, options, *list, *result, return_types, names);
	return std::move(result);
}

} // namespace vortex
