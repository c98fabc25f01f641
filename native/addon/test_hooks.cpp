#include "test_hooks.hpp"

#include "connection.hpp"

#include "duckdb.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/planner/operator/logical_get.hpp"

namespace vortex_addon {

namespace {

duckdb::LogicalGet *FirstGet(duckdb::LogicalOperator &op) {
	if (op.type == duckdb::LogicalOperatorType::LOGICAL_GET) {
		return &op.Cast<duckdb::LogicalGet>();
	}
	for (auto &child : op.children) {
		if (auto get = FirstGet(*child)) {
			return get;
		}
	}
	return nullptr;
}

// scanBindDataEqual(connection, sqlA, sqlB): plans both queries (optimizers included) and
// compares the bind data of the first table function scan in each with FunctionData::Equals,
// which DuckDB uses to decide whether two scans are interchangeable.
Napi::Value ScanBindDataEqual(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	if (info.Length() != 3 || !info[0].IsExternal() || !info[1].IsString() || !info[2].IsString()) {
		throw Napi::TypeError::New(env, "scanBindDataEqual(connection, sqlA, sqlB)");
	}
	auto &connection = ConnectionOf(info[0]);
	try {
		auto &context = *connection.context;
		auto a = context.ExtractPlan(info[1].As<Napi::String>().Utf8Value());
		auto b = context.ExtractPlan(info[2].As<Napi::String>().Utf8Value());
		auto ga = FirstGet(*a), gb = FirstGet(*b);
		if (!ga || !gb || !ga->bind_data || !gb->bind_data) {
			throw Napi::Error::New(env, "scanBindDataEqual: a query has no table function scan");
		}
		if (ga->function.name != gb->function.name) {
			return Napi::Boolean::New(env, false);
		}
		return Napi::Boolean::New(env, ga->bind_data->Equals(*gb->bind_data) && gb->bind_data->Equals(*ga->bind_data));
	} catch (Napi::Error &) {
		throw;
	} catch (std::exception &e) {
		throw Napi::Error::New(env, duckdb::ErrorData(e).Message());
	}
}

} // namespace

void AddTestHooks(Napi::Env env, Napi::Object exports) {
	auto hooks = Napi::Object::New(env);
	hooks.Set("scanBindDataEqual", Napi::Function::New(env, ScanBindDataEqual));
	exports.Set("__test", hooks);
}

} // namespace vortex_addon
