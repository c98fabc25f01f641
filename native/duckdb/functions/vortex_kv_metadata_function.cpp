#include "vortex_kv_metadata_function.hpp"

#include "../file_io.hpp"
#include "../metadata_cache.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"

namespace vortex {

using namespace duckdb;

namespace {

struct KeyValueBindData : public TableFunctionData {
	vector<string> paths;
};

unique_ptr<FunctionData> KeyValueBind(ClientContext &context, TableFunctionBindInput &input,
                                      vector<LogicalType> &return_types, vector<string> &names) {
	if (input.inputs[0].IsNull()) {
		throw BinderException("vortex_kv_metadata: the path must not be NULL");
	}
	auto bind = make_uniq<KeyValueBindData>();
	// Globs and lists expanded by DuckDB, as for vortex_scan and parquet_kv_metadata.
	auto list = MultiFileReader::CreateDefault("vortex_kv_metadata")->CreateFileList(context, input.inputs[0]);
	for (auto &file : list->GetAllFiles()) {
		bind->paths.push_back(file.path);
	}
	names = {"file_name", "key", "value"};
	return_types = {LogicalType::VARCHAR, LogicalType::BLOB, LogicalType::BLOB};
	return std::move(bind);
}

struct KeyValueState : public GlobalTableFunctionState {
	size_t file = 0;
	size_t pair = 0;
	std::shared_ptr<const vtx::FileMetadata> meta; //! of `file`, once read
};

unique_ptr<GlobalTableFunctionState> KeyValueInit(ClientContext &, TableFunctionInitInput &) {
	return make_uniq<KeyValueState>();
}

void KeyValueScan(ClientContext &context, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<KeyValueBindData>();
	auto &state = data.global_state->Cast<KeyValueState>();
	idx_t count = 0;
	while (count < STANDARD_VECTOR_SIZE && state.file < bind.paths.size()) {
		if (!state.meta) {
			FileSource source(context, bind.paths[state.file]);
			state.meta = GetMetadata(source);
			state.pair = 0;
		}
		if (state.pair == state.meta->key_value.size()) {
			state.meta.reset();
			state.file++;
			continue;
		}
		auto &kv = state.meta->key_value[state.pair++];
		output.SetValue(0, count, Value(bind.paths[state.file]));
		output.SetValue(1, count, Value::BLOB(const_data_ptr_cast(kv.first.data()), kv.first.size()));
		output.SetValue(2, count, Value::BLOB(const_data_ptr_cast(kv.second.data()), kv.second.size()));
		count++;
	}
	output.SetCardinality(count);
}

} // namespace

TableFunctionSet GetVortexKeyValueMetadataFunctions() {
	TableFunctionSet set("vortex_kv_metadata");
	TableFunction one("vortex_kv_metadata", {LogicalType::VARCHAR}, KeyValueScan, KeyValueBind, KeyValueInit);
	set.AddFunction(one);
	one.arguments = {LogicalType::LIST(LogicalType::VARCHAR)};
	set.AddFunction(one);
	return set;
}

} // namespace vortex
