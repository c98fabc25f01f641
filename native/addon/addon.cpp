// N-API entry. Reaches the duckdb::DatabaseInstance behind a @duckdb/node-api connection
// and registers the extension there. The addon links the libduckdb.so that
// @duckdb/node-bindings loaded, so both see one DuckDB.
#include "../duckdb/extension.hpp"
#include "test_hooks.hpp"
#include "duckdb.hpp"

#include <napi.h>

namespace {

// @duckdb/node-bindings keeps a connection as an external whose data starts with the C API
// handle; the C API's duckdb_connection is a duckdb::Connection *.
struct NodeBindingsConnection {
	duckdb::Connection *connection;
};

std::string GetString(const Napi::Object &o, const char *key) {
	auto v = o.Get(key);
	if (!v.IsString()) {
		throw Napi::TypeError::New(o.Env(), std::string("rule field '") + key + "' must be a string");
	}
	return v.As<Napi::String>().Utf8Value();
}

bool GetBool(const Napi::Object &o, const char *key) {
	auto v = o.Get(key);
	if (!v.IsBoolean()) {
		throw Napi::TypeError::New(o.Env(), std::string("rule field '") + key + "' must be a boolean");
	}
	return v.As<Napi::Boolean>().Value();
}

// attach(connectionExternal, rules) -> boolean (true when newly registered in that database)
Napi::Value Attach(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	if (info.Length() != 2 || !info[0].IsExternal() || !info[1].IsArray()) {
		throw Napi::TypeError::New(env, "attach(connection, rules): expected a DuckDB connection handle and an array");
	}
	auto *handle = info[0].As<Napi::External<NodeBindingsConnection>>().Data();
	if (!handle || !handle->connection || !handle->connection->context) {
		throw Napi::Error::New(env, "duckdb-vortex: the connection is closed");
	}
	auto rules = duckdb::make_shared_ptr<vortex::RulesTable>();
	auto list = info[1].As<Napi::Array>();
	for (uint32_t i = 0; i < list.Length(); i++) {
		auto v = list.Get(i);
		if (!v.IsObject()) {
			throw Napi::TypeError::New(env, "each rule must be an object");
		}
		auto o = v.As<Napi::Object>();
		vortex::PushdownRule r;
		r.function = GetString(o, "fn");
		r.type_key = GetString(o, "type");
		r.setting = GetString(o, "setting");
		r.skip_nans = GetBool(o, "skipNans");
		r.empty_is_null = GetBool(o, "emptyIsNull");
		rules->rules.push_back(std::move(r));
	}
	try {
		auto &db = *handle->connection->context->db;
		return Napi::Boolean::New(env, vortex::RegisterVortex(db, std::move(rules)));
	} catch (std::exception &e) {
		duckdb::ErrorData error(e);
		throw Napi::Error::New(env, "duckdb-vortex: registration failed: " + error.Message());
	}
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
	exports.Set("attach", Napi::Function::New(env, Attach));
	exports.Set("duckdbVersion", Napi::String::New(env, vortex::CompiledDuckDBVersion()));
	vortex_addon::AddTestHooks(env, exports);
	return exports;
}

} // namespace

NODE_API_MODULE(duckdb_vortex, Init)
