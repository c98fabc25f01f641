#include "memory_info_function.hpp"

#include "../../format/buffer_memory.hpp"
#include "../../format/scratch.hpp"
#include "../../format/file/segment_cache.hpp"
#include "../metadata_cache.hpp"
#include "duckdb/main/config.hpp"

namespace vortex {

using namespace duckdb;

namespace {

struct CacheInfoState : public GlobalTableFunctionState {
	std::vector<CachedFooter> rows;
	size_t next = 0;
};

unique_ptr<FunctionData> CacheInfoBind(ClientContext &context, TableFunctionBindInput &, vector<LogicalType> &types,
                                       vector<string> &names) {
	// It lists paths of files read earlier: as much a file system operation as a glob.
	Value external;
	if (context.TryGetCurrentSetting("enable_external_access", external) && !external.IsNull() &&
	    !BooleanValue::Get(external.DefaultCastAs(LogicalType::BOOLEAN))) {
		throw PermissionException("vortex_cache_info is disabled by configuration (enable_external_access = false)");
	}
	names = {"path", "file_size", "zones", "bytes"};
	types = {LogicalType::VARCHAR, LogicalType::UBIGINT, LogicalType::UBIGINT, LogicalType::UBIGINT};
	return make_uniq<TableFunctionData>();
}

unique_ptr<GlobalTableFunctionState> CacheInfoInit(ClientContext &context, TableFunctionInitInput &) {
	auto state = make_uniq<CacheInfoState>();
	state->rows = CachedFooters(context);
	return std::move(state);
}

void CacheInfoScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &state = data.global_state->Cast<CacheInfoState>();
	idx_t n = 0;
	while (state.next < state.rows.size() && n < STANDARD_VECTOR_SIZE) {
		auto &r = state.rows[state.next++];
		output.SetValue(0, n, Value(r.path));
		output.SetValue(1, n, Value::UBIGINT(r.file_size));
		output.SetValue(2, n, Value::UBIGINT(r.zones));
		output.SetValue(3, n, Value::UBIGINT(r.bytes));
		n++;
	}
	output.SetCardinality(n);
}

struct BufferInfoState : public GlobalTableFunctionState {
	bool done = false;
};

unique_ptr<FunctionData> BufferInfoBind(ClientContext &, TableFunctionBindInput &, vector<LogicalType> &types,
                                        vector<string> &names) {
	names = {"idle_thread_bytes", "operations_in_flight", "c_heap_in_use", "c_heap_free", "cached_buffer_bytes",
	         "cached_segment_bytes"};
	types = {LogicalType::UBIGINT, LogicalType::UBIGINT, LogicalType::UBIGINT, LogicalType::UBIGINT,
	         LogicalType::UBIGINT, LogicalType::UBIGINT};
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
	size_t in_use, free_held;
	const bool known = vtx::HeapInfo(in_use, free_held);
	output.SetValue(2, 0, known ? Value::UBIGINT(in_use) : Value(LogicalType::UBIGINT));
	output.SetValue(3, 0, known ? Value::UBIGINT(free_held) : Value(LogicalType::UBIGINT));
	output.SetValue(4, 0, Value::UBIGINT(vtx::CachedBufferBytes()));
	output.SetValue(5, 0, Value::UBIGINT(vtx::CachedSegmentBytes()));
	output.SetCardinality(1);
}

} // namespace

TableFunction GetVortexCacheInfoFunction() {
	return TableFunction("vortex_cache_info", {}, CacheInfoScan, CacheInfoBind, CacheInfoInit);
}

TableFunction GetVortexBufferInfoFunction() {
	return TableFunction("vortex_buffer_info", {}, BufferInfoScan, BufferInfoBind, BufferInfoInit);
}

} // namespace vortex
