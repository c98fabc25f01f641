#include "test_hooks.hpp"

#include "connection.hpp"
#include "../duckdb/duckdb_compat.hpp"

#include "duckdb.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/planner/operator/logical_get.hpp"

#include <cstdint>
#include <functional>
#include <vector>

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

//! The functions a list's elements held when the test looked, and how to read them again at
//! the same place.
struct HeldList {
	std::vector<uintptr_t> functions;
	std::function<uintptr_t(size_t)> function_at;
};
std::vector<HeldList> held;

template <class ITEM, class FN>
void Hold(duckdb::vector<ITEM> &list, FN function_of) {
	list.shrink_to_fit(); // any append must now move the elements
	const ITEM *data = list.data();
	HeldList h;
	for (auto &e : list) {
		h.functions.push_back(reinterpret_cast<uintptr_t>(function_of(e)));
	}
	h.function_at = [data, function_of](size_t i) { return reinterpret_cast<uintptr_t>(function_of(data[i])); };
	held.push_back(std::move(h));
}

// holdRegistrationLists(connection): the lists registerVortex appends to, which other
// connections walk without a lock while they bind and optimize (replacement scans; in 1.4 the
// optimizer extensions), are trimmed to their size, so that any append must move them, and
// where their elements lie is remembered. Returns how many elements are held.
Napi::Value HoldRegistrationLists(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	if (info.Length() != 1 || !info[0].IsExternal()) {
		throw Napi::TypeError::New(env, "holdRegistrationLists(connection)");
	}
	auto &config = duckdb::DBConfig::GetConfig(*ConnectionOf(info[0]).context);
	held.clear();
	Hold(config.replacement_scans, [](const duckdb::ReplacementScan &e) { return e.function; });
	if (auto optimizers = vortex::compat::UnlockedOptimizerExtensions(config)) {
		Hold(*optimizers, [](const duckdb::OptimizerExtension &e) { return e.optimize_function; });
	}
	size_t n = 0;
	for (auto &h : held) {
		n += h.functions.size();
	}
	return Napi::Number::New(env, static_cast<double>(n));
}

// heldRegistrationListsIntact(): whether the held elements are still where they were, holding
// the same functions: what a connection that was walking a list while registration ran reads.
// An append in place would have freed them (and the allocator reuses freed memory).
Napi::Value HeldRegistrationListsIntact(const Napi::CallbackInfo &info) {
	for (auto &h : held) {
		for (size_t i = 0; i < h.functions.size(); i++) {
			if (h.function_at(i) != h.functions[i]) {
				return Napi::Boolean::New(info.Env(), false);
			}
		}
	}
	return Napi::Boolean::New(info.Env(), true);
}

} // namespace

void AddTestHooks(Napi::Env env, Napi::Object exports) {
	auto hooks = Napi::Object::New(env);
	hooks.Set("scanBindDataEqual", Napi::Function::New(env, ScanBindDataEqual));
	hooks.Set("holdRegistrationLists", Napi::Function::New(env, HoldRegistrationLists));
	hooks.Set("heldRegistrationListsIntact", Napi::Function::New(env, HeldRegistrationListsIntact));
	exports.Set("__test", hooks);
}

} // namespace vortex_addon
