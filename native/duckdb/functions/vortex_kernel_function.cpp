#include "vortex_kernel_function.hpp"

#include "../../compute/kernels.hpp"
#include "../../format/file/reader.hpp"
#include "../file_io.hpp"
#include "../metadata_cache.hpp"
#include "../type_mapping.hpp"

namespace vortex {

using namespace duckdb;
using vtx::compute::Kernel;

namespace {

struct KernelBindData : public TableFunctionData {
	std::string path;
	std::string column;
	idx_t field = 0;
	vtx::ColumnType type;
	LogicalType field_type;
	Kernel kernel = Kernel::COUNT;
	bool skip_nans = true;

	//! Bound again on every execution of a prepared statement, so a rewritten file is read
	//! with its own schema.
	bool SupportStatementCache() const override {
		return false;
	}
};

bool ParseKernel(const std::string &name, Kernel &k) {
	if (name == "count_rows") k = Kernel::COUNT_ROWS;
	else if (name == "count") k = Kernel::COUNT;
	else if (name == "sum") k = Kernel::SUM;
	else if (name == "mean" || name == "avg") k = Kernel::MEAN;
	else if (name == "min") k = Kernel::MIN;
	else if (name == "max") k = Kernel::MAX;
	else return false;
	return true;
}

unique_ptr<FunctionData> KernelBind(ClientContext &context, TableFunctionBindInput &input,
                                    vector<LogicalType> &return_types, vector<string> &names) {
	auto bind = make_uniq<KernelBindData>();
	bind->path = input.inputs[0].ToString();
	auto column = input.inputs[1].ToString();
	bind->column = column;
	auto kernel = StringUtil::Lower(input.inputs[2].ToString());
	if (!ParseKernel(kernel, bind->kernel)) {
		throw BinderException("vortex_kernel: unknown kernel \"%s\" (count_rows, count, sum, mean, min, max)", kernel);
	}
	for (auto &kv : input.named_parameters) {
		if (kv.first == "skip_nans") {
			bind->skip_nans = BooleanValue::Get(kv.second);
		}
	}
	FileSource source(context, bind->path);
	auto meta = GetMetadata(source);
	bool found = false;
	for (idx_t i = 0; i < meta->fields.size(); i++) {
		if (meta->fields[i].name == column) {
			bind->field = i;
			bind->type = meta->fields[i].type;
			found = true;
		}
	}
	if (!found) {
		throw BinderException("vortex_kernel: file \"%s\" has no column \"%s\"", bind->path, column);
	}
	bind->field_type = ToLogicalType(bind->type);
	LogicalType result;
	switch (bind->kernel) {
	case Kernel::COUNT_ROWS:
	case Kernel::COUNT: result = LogicalType::BIGINT; break;
	case Kernel::SUM:
		if (bind->type.IsFloat()) {
			result = LogicalType::DOUBLE;
		} else if (bind->type.HasIntegerSum()) {
			result = LogicalType::HUGEINT;
		} else {
			throw BinderException("vortex_kernel: sum is not supported for %s", bind->field_type.ToString());
		}
		break;
	case Kernel::MEAN:
		if (!bind->type.IsFloat() && !bind->type.HasIntegerSum()) {
			throw BinderException("vortex_kernel: mean is not supported for %s", bind->field_type.ToString());
		}
		result = LogicalType::DOUBLE;
		break;
	default:
		if (!bind->type.Ordered()) {
			throw BinderException("vortex_kernel: min/max are not supported for %s", bind->field_type.ToString());
		}
		result = bind->field_type;
	}
	return_types.push_back(result);
	names.push_back("result");
	return std::move(bind);
}

struct KernelState : public GlobalTableFunctionState {
	Value value;
	bool done = false;
};

unique_ptr<GlobalTableFunctionState> KernelInit(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<KernelBindData>();
	auto state = make_uniq<KernelState>();
	FileSource source(context, bind.path);
	auto meta = GetMetadata(source);
	// The file may have been replaced since binding: read it only as the column it was bound as.
	if (bind.field >= meta->fields.size() || meta->fields[bind.field].name != bind.column ||
	    meta->fields[bind.field].type != bind.type) {
		throw IOException("vortex_kernel: file \"%s\" was replaced after the query was planned and column \"%s\" "
		                  "is no longer %s there; run the query again",
		                  bind.path, bind.column, bind.field_type.ToString());
	}
	vtx::compute::AggregateState agg(bind.type);
	for (size_t z = 0; z < meta->zones.size(); z++) {
		auto &stats = meta->zones[z].chunks[bind.field].stats;
		if (vtx::compute::AggregateState::StatsSuffice(stats, true, true)) {
			agg.AddStats(stats);
		} else {
			vtx::DecodedColumn chunk;
			try {
				vtx::ReadChunk(source, *meta, z, bind.field, chunk);
			} catch (vtx::FormatError &e) {
				ThrowFileError(bind.path, e);
			}
			agg.AddDecoded(chunk);
		}
	}
	vtx::compute::KernelOptions options;
	options.skip_nans = bind.skip_nans;
	auto r = vtx::compute::Evaluate(bind.kernel, agg, options);
	switch (r.kind) {
	case vtx::compute::Scalar::Kind::NULL_VALUE: state->value = Value(); break;
	case vtx::compute::Scalar::Kind::INTEGER: state->value = Value::HUGEINT(ToHugeint(r.integer)); break;
	case vtx::compute::Scalar::Kind::FLOAT: state->value = Value::DOUBLE(r.real); break;
	case vtx::compute::Scalar::Kind::BYTES: state->value = RawToValue(bind.field_type, r.bytes); break;
	}
	return std::move(state);
}

void KernelScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &state = data.global_state->Cast<KernelState>();
	if (state.done) {
		return;
	}
	output.SetValue(0, 0, state.value.DefaultCastAs(output.data[0].GetType()));
	output.SetCardinality(1);
	state.done = true;
}

} // namespace

TableFunction GetVortexKernelFunction() {
	TableFunction tf("vortex_kernel", {LogicalType::VARCHAR, LogicalType::VARCHAR, LogicalType::VARCHAR}, KernelScan,
	                 KernelBind, KernelInit);
	tf.named_parameters["skip_nans"] = LogicalType::BOOLEAN;
	return tf;
}

} // namespace vortex
