#include "scan_serialization.hpp"

#include "scan_bind.hpp"
#include "scan_bind_data.hpp"
#include "duckdb/parser/tableref/table_function_ref.hpp"

namespace vortex {

using namespace duckdb;

void ScanSerialize(Serializer &s, const optional_ptr<FunctionData> bind_p, const TableFunction &) {
	auto &bind = bind_p->Cast<ScanBindData>();
	vector<string> paths;
	for (auto &f : bind.files) {
		paths.push_back(f.path);
	}
	vector<string> names;
	for (auto &f : bind.fields) {
		names.push_back(f.name);
	}
	s.WriteProperty(100, "files", paths);
	s.WriteProperty(101, "named_parameters", bind.named_parameters);
	s.WriteProperty(102, "names", names);
	s.WriteProperty(103, "types", bind.types);
	SerializeExpressionFilters(s, 104, bind.expression_filters);
	vector<idx_t> null_fields;
	vector<uint8_t> null_is_null;
	for (auto &nf : bind.null_filters) {
		null_fields.push_back(nf.first);
		null_is_null.push_back(nf.second);
	}
	s.WriteProperty(105, "null_filter_fields", null_fields);
	s.WriteProperty(106, "null_filter_is_null", null_is_null);
}

unique_ptr<FunctionData> ScanDeserialize(Deserializer &d, TableFunction &function) {
	auto &context = d.Get<ClientContext &>();
	auto paths = d.ReadProperty<vector<string>>(100, "files");
	auto named_parameters = d.ReadProperty<named_parameter_map_t>(101, "named_parameters");
	auto names = d.ReadProperty<vector<string>>(102, "names");
	auto types = d.ReadProperty<vector<LogicalType>>(103, "types");
	// Bound again over the very files (not the glob): DuckDB binds read_parquet the same way.
	vector<Value> list;
	for (auto &p : paths) {
		list.emplace_back(p);
	}
	vector<Value> inputs {Value::LIST(LogicalType::VARCHAR, std::move(list))};
	vector<LogicalType> input_types, return_types;
	vector<string> input_names, return_names;
	TableFunctionRef ref;
	TableFunctionBindInput input(inputs, named_parameters, input_types, input_names, function.function_info.get(),
	                             nullptr, function, ref);
	auto result = ScanBind(context, input, return_types, return_names);
	auto &bind = result->Cast<ScanBindData>();
	bool same = bind.fields.size() == names.size() && bind.types == types;
	for (idx_t i = 0; same && i < names.size(); i++) {
		same = bind.fields[i].name == names[i];
	}
	if (!same) {
		throw IOException("vortex: a file of the scan (\"%s\") was replaced after the query was planned and its schema "
		                  "changed; run the query again",
		                  paths.empty() ? string() : paths[0]);
	}
	bind.expression_filters = DeserializeExpressionFilters(d, 104);
	auto null_fields = d.ReadProperty<vector<idx_t>>(105, "null_filter_fields");
	auto null_is_null = d.ReadProperty<vector<uint8_t>>(106, "null_filter_is_null");
	for (idx_t i = 0; i < null_fields.size() && i < null_is_null.size(); i++) {
		bind.null_filters.emplace_back(null_fields[i], null_is_null[i] != 0);
	}
	return result;
}

} // namespace vortex
