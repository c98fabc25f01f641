#include "memory_info_function.hpp"

#include "../format/scratch.hpp"

namespace vortex {

using namespace duckdb;

namespace {

struct BufferInfoState : public GlobalTableFunctionState {
	bool done = false;
};

unique_ptr<FunctionData> BufferInfoBind(ClientContext &, TableFunctionBindInput &, vector<LogicalType> &types,
                                        vector<string> &names) {
	names = {"idle_thread_bytes", "operations_in_flight"};
	types = {LogicalType::UBIGINT, LogicalType::UBIGINT};
	return make_uniq<TableFunctionData>();
}

unique_ptr<GlobalTableFunctionState> BufferInfoInit(ClientContext &, TableFunctionInitInput &) {
	return make_uniq<BufferInfoState>();
}

void BufferInfoScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &state = data.global_state->Cast<BufferInfoState>();
	if (state.done) {
		output.SetCardinality(0);
		return;
	}
	state.done = true;
	output.SetValue(0, 0, Value::UBIGINT(vtx::IdleScratchBytes()));
	output.SetValue(1, 0, Value::UBIGINT(vtx::ScratchActivities()));
	output.SetCardinality(1);
}

} // namespace

TableFunction GetVortexBufferInfoFunction() {
	return TableFunction("vortex_buffer_info", {}, BufferInfoScan, BufferInfoBind, BufferInfoInit);
}

} // namespace vortex
