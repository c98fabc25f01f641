#include "test_hooks.hpp"

#include "connection.hpp"
#include "../compute/compact_float_sum.hpp"
#include "../format/utf8.hpp"
#include "../duckdb/duckdb_compat.hpp"
#include "../duckdb/io/sim_store.hpp"

#include "duckdb.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/planner/operator/logical_get.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
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

// compactFloatSum(steps, merges): the exact-sum state of the float aggregates, driven directly.
// Each step is [state, how, values, count]: how 0 adds the values one by one, 1 as a batch, 2
// adds values[0] `count` times. Then each merge [into, from] combines state `from` into `into`.
// Returns state 0's [sum, mean] (the mean only where no NaN or infinity was added), its count
// and its exact finite sum.
Napi::Value CompactFloatSumHook(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	if (info.Length() != 2 || !info[0].IsArray() || !info[1].IsArray()) {
		throw Napi::TypeError::New(env, "compactFloatSum(steps, merges)");
	}
	using vtx::compute::CompactFloatSum;
	std::vector<CompactFloatSum> states;
	const auto state = [&](uint32_t k) -> CompactFloatSum & {
		while (states.size() <= k) {
			states.emplace_back();
			states.back().Initialize();
		}
		return states[k];
	};
	auto steps = info[0].As<Napi::Array>();
	for (uint32_t i = 0; i < steps.Length(); i++) {
		auto step = steps.Get(i).As<Napi::Array>();
		auto &s = state(step.Get(0u).As<Napi::Number>().Uint32Value());
		const auto how = step.Get(1u).As<Napi::Number>().Uint32Value();
		auto list = step.Get(2u).As<Napi::Array>();
		std::vector<double> values(list.Length());
		for (uint32_t j = 0; j < list.Length(); j++) {
			values[j] = list.Get(j).As<Napi::Number>().DoubleValue();
		}
		if (how == 0) {
			for (auto v : values) {
				s.Add(v);
			}
		} else if (how == 1) {
			s.AddBatch(values.data(), values.size());
		} else if (!values.empty()) {
			s.AddTimes(values[0], static_cast<uint64_t>(step.Get(3u).As<Napi::Number>().Int64Value()));
		}
	}
	auto merges = info[1].As<Napi::Array>();
	for (uint32_t i = 0; i < merges.Length(); i++) {
		auto m = merges.Get(i).As<Napi::Array>();
		const auto into = m.Get(0u).As<Napi::Number>().Uint32Value(), from = m.Get(1u).As<Napi::Number>().Uint32Value();
		state(std::max(into, from));
		states[into].Combine(states[from]);
	}
	auto &s = state(0);
	// The exact finite sum in units of 2^-1074, as a hexadecimal BigInt literal.
	const auto exact = s.Finite();
	std::string hex;
	char digits[9];
	for (size_t k = exact.words.size(); k-- > 0;) {
		std::snprintf(digits, sizeof(digits), "%08x", exact.words[k]);
		hex += digits;
	}
	hex += std::string(exact.words.empty() ? 1 : 8 * exact.low_word, '0');
	auto out = Napi::Array::New(env, 4);
	out.Set(3u, Napi::String::New(env, (exact.negative ? "-0x" : "0x") + hex));
	const bool special = s.HasNaN() || s.HasPosInf() || s.HasNegInf();
	out.Set(0u, special ? env.Null() : Napi::Number::New(env, s.values ? s.Sum() : 0.0));
	out.Set(1u, special || !s.values ? env.Null() : Napi::Number::New(env, s.Mean()));
	out.Set(2u, Napi::Number::New(env, static_cast<double>(s.values)));
	for (auto &each : states) {
		each.Destroy();
	}
	return out;
}

// The simulated object store (native/duckdb/io/sim_store.hpp), per database.
double NumberOption(const Napi::Object &o, const char *key, double otherwise) {
	auto v = o.Get(key);
	if (v.IsUndefined()) {
		return otherwise;
	}
	if (!v.IsNumber() || v.As<Napi::Number>().DoubleValue() < 0) {
		throw Napi::TypeError::New(o.Env(), std::string("simStore: option '") + key + "' must be a number >= 0");
	}
	return v.As<Napi::Number>().DoubleValue();
}

std::shared_ptr<vortex::SimStore> StoreOf(const Napi::CallbackInfo &info, const char *usage) {
	if (info.Length() < 1 || !info[0].IsExternal() || (info.Length() > 1 && !info[1].IsObject())) {
		throw Napi::TypeError::New(info.Env(), usage);
	}
	auto store = vortex::FindSimStore(*ConnectionOf(info[0]).context->db);
	if (!store) {
		throw Napi::Error::New(info.Env(), std::string(usage) + ": the simulated object store is not enabled in this "
		                                                         "database (enableSimStore)");
	}
	return store;
}

// validUtf8(buffer): the reader's UTF-8 check (format/utf8.hpp) on the buffer's bytes.
Napi::Value ValidUtf8Hook(const Napi::CallbackInfo &info) {
	if (info.Length() != 1 || !info[0].IsBuffer()) {
		throw Napi::TypeError::New(info.Env(), "validUtf8(buffer)");
	}
	auto b = info[0].As<Napi::Buffer<uint8_t>>();
	return Napi::Boolean::New(info.Env(), vtx::ValidUtf8(b.Data(), b.Length()));
}

// enableSimStore(connection, {latencyMs, bandwidthMBps}?): registers simstore:// URLs in the
// connection's database (once; the options apply each time): local files served as an object store
// serves them, latencyMs per request and bandwidthMBps (10^6 bytes a second) per stream, 0 (the
// default) for none.
Napi::Value EnableSimStoreHook(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	if (info.Length() < 1 || info.Length() > 2 || !info[0].IsExternal() || (info.Length() == 2 && !info[1].IsObject())) {
		throw Napi::TypeError::New(env, "enableSimStore(connection, {latencyMs, bandwidthMBps}?)");
	}
	auto options = info.Length() == 2 ? info[1].As<Napi::Object>() : Napi::Object::New(env);
	const auto latency = NumberOption(options, "latencyMs", 0), bandwidth = NumberOption(options, "bandwidthMBps", 0);
	auto store = vortex::EnableSimStore(*ConnectionOf(info[0]).context->db);
	store->Configure(latency, bandwidth * 1e6);
	return env.Undefined();
}

// simStoreStats(connection): {head, get, list, bytes, concurrent} since the store was enabled or
// reset; concurrent is the most requests that were in flight at once.
Napi::Value SimStoreStatsHook(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	const auto c = StoreOf(info, "simStoreStats(connection)")->Counters();
	auto out = Napi::Object::New(env);
	out.Set("head", Napi::Number::New(env, static_cast<double>(c.head)));
	out.Set("get", Napi::Number::New(env, static_cast<double>(c.get)));
	out.Set("list", Napi::Number::New(env, static_cast<double>(c.list)));
	out.Set("bytes", Napi::Number::New(env, static_cast<double>(c.bytes)));
	out.Set("concurrent", Napi::Number::New(env, static_cast<double>(c.concurrent)));
	return out;
}

// resetSimStore(connection): zeroes the counters, disarms the fault and undoes replacements.
Napi::Value ResetSimStoreHook(const Napi::CallbackInfo &info) {
	StoreOf(info, "resetSimStore(connection)")->Reset();
	return info.Env().Undefined();
}

// simStoreFault(connection, {kind: 'fail' | 'short' | 'change', after?, object?, replacement?,
// checkEtag?}): arms one fault for the GET that follows `after` others (of `object`, a local path,
// where given); 'change' needs `replacement`, the local file the object holds from then on.
Napi::Value SimStoreFaultHook(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	const char *usage = "simStoreFault(connection, {kind: 'fail' | 'short' | 'change', after?, object?, replacement?, "
	                    "checkEtag?})";
	if (info.Length() != 2) {
		throw Napi::TypeError::New(env, usage);
	}
	auto store = StoreOf(info, usage);
	auto o = info[1].As<Napi::Object>();
	const auto text = [&](const char *key) {
		auto v = o.Get(key);
		if (v.IsUndefined()) {
			return std::string();
		}
		if (!v.IsString()) {
			throw Napi::TypeError::New(env, std::string(usage) + ": '" + key + "' must be a string");
		}
		return v.As<Napi::String>().Utf8Value();
	};
	vortex::SimStoreFault fault;
	const auto kind = text("kind");
	if (kind == "fail") {
		fault.kind = vortex::SimStoreFaultKind::FAIL;
	} else if (kind == "short") {
		fault.kind = vortex::SimStoreFaultKind::SHORT_READ;
	} else if (kind == "change") {
		fault.kind = vortex::SimStoreFaultKind::CHANGE;
	} else {
		throw Napi::TypeError::New(env, std::string(usage) + ": unknown kind '" + kind + "'");
	}
	fault.after = static_cast<uint64_t>(NumberOption(o, "after", 0));
	fault.object = text("object");
	fault.replacement = text("replacement");
	if (fault.kind == vortex::SimStoreFaultKind::CHANGE && fault.replacement.empty()) {
		throw Napi::TypeError::New(env, std::string(usage) + ": 'change' needs a replacement");
	}
	auto check = o.Get("checkEtag");
	fault.check_etag = check.IsUndefined() || check.ToBoolean().Value();
	store->InjectFault(std::move(fault));
	return env.Undefined();
}

} // namespace

void AddTestHooks(Napi::Env env, Napi::Object exports) {
	auto hooks = Napi::Object::New(env);
	hooks.Set("scanBindDataEqual", Napi::Function::New(env, ScanBindDataEqual));
	hooks.Set("holdRegistrationLists", Napi::Function::New(env, HoldRegistrationLists));
	hooks.Set("heldRegistrationListsIntact", Napi::Function::New(env, HeldRegistrationListsIntact));
	hooks.Set("compactFloatSum", Napi::Function::New(env, CompactFloatSumHook));
	hooks.Set("validUtf8", Napi::Function::New(env, ValidUtf8Hook));
	hooks.Set("enableSimStore", Napi::Function::New(env, EnableSimStoreHook));
	hooks.Set("simStoreStats", Napi::Function::New(env, SimStoreStatsHook));
	hooks.Set("resetSimStore", Napi::Function::New(env, ResetSimStoreHook));
	hooks.Set("simStoreFault", Napi::Function::New(env, SimStoreFaultHook));
	exports.Set("__test", hooks);
}

} // namespace vortex_addon
