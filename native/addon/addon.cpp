// N-API entry. Reaches the duckdb::DatabaseInstance behind a @duckdb/node-api connection
// and registers the extension there. The addon links the libduckdb.so that
// @duckdb/node-bindings loaded, so both see one DuckDB.
#include "../duckdb/extension.hpp"
#include "catalog.hpp"
#include "connection.hpp"
#include "test_hooks.hpp"
#include "duckdb.hpp"

#include <napi.h>

namespace {

std::string GetString(const Napi::Object &o, uint32_t index, const char *key) {
	auto v = o.Get(key);
	if (!v.IsString()) {
		throw Napi::TypeError::New(o.Env(), "duckdb-vortex: rule " + std::to_string(index) + ": field '" + key +
		                                        "' must be a string");
	}
	return v.As<Napi::String>().Utf8Value();
}

bool GetBool(const Napi::Object &o, uint32_t index, const char *key) {
	auto v = o.Get(key);
	if (!v.IsBoolean()) {
		throw Napi::TypeError::New(o.Env(), "duckdb-vortex: rule " + std::to_string(index) + ": field '" + key +
		                                        "' must be a boolean");
	}
	return v.As<Napi::Boolean>().Value();
}

duckdb::shared_ptr<vortex::RulesTable> ParseRules(const Napi::Array &list) {
	auto rules = duckdb::make_shared_ptr<vortex::RulesTable>();
	for (uint32_t i = 0; i < list.Length(); i++) {
		auto v = list.Get(i);
		if (!v.IsObject()) {
			throw Napi::TypeError::New(list.Env(), "duckdb-vortex: rule " + std::to_string(i) + " must be an object");
		}
		auto o = v.As<Napi::Object>();
		vortex::PushdownRule r;
		r.function = GetString(o, i, "fn");
		r.type_key = GetString(o, i, "type");
		r.setting = GetString(o, i, "setting");
		r.skip_nans = GetBool(o, i, "skipNans");
		r.empty_is_null = GetBool(o, i, "emptyIsNull");
		r.non_finite_is_nan = GetBool(o, i, "nonFiniteIsNan");
		rules->rules.push_back(std::move(r));
	}
	return rules;
}


// attach(connectionExternal, rules, rulesGiven) -> boolean (true when newly registered in that
// database). rulesGiven: the caller chose these rules; a database registered with other rules
// is then an error. Otherwise the rules only apply if this call registers.
Napi::Value AttachUnchecked(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	if (info.Length() < 2 || info.Length() > 3 || !info[1].IsArray() || (info.Length() == 3 && !info[2].IsBoolean())) {
		throw Napi::TypeError::New(env, "duckdb-vortex: attach(connection, rules[, rulesGiven]): expected a DuckDB "
		                                "connection handle, an array and a boolean");
	}
	auto &connection = vortex_addon::ConnectionOf(info[0]);
	auto rules = ParseRules(info[1].As<Napi::Array>());
	bool rules_given = info.Length() == 3 && info[2].As<Napi::Boolean>().Value();

	auto &db = *connection.context->db;
	auto result = vortex::RegisterVortex(db, rules);
	if (!result.rules) {
		throw Napi::Error::New(env, "duckdb-vortex: this database already has an extension named 'vortex' that is not "
		                            "duckdb-vortex; cannot register");
	}
	if (!result.registered && rules_given && !result.rules->SameRules(*rules)) {
		throw Napi::Error::New(env, "duckdb-vortex: this database is already registered with other pushdown rules (" +
		                                result.rules->DescribeDifference(*rules, "in the database", "in this call") +
		                                "). A database keeps the rules of its first registration: pass the same rules, "
		                                "or omit `rules` to accept the database's.");
	}
	return Napi::Boolean::New(env, result.registered);
}

// No C++ exception may cross into N-API: everything that is not already a JS error becomes one.
Napi::Value Attach(const Napi::CallbackInfo &info) {
	auto env = info.Env();
	try {
		return AttachUnchecked(info);
	} catch (Napi::Error &) {
		throw;
	} catch (std::exception &e) {
		duckdb::ErrorData error(e);
		throw Napi::Error::New(env, "duckdb-vortex: registration failed: " + error.Message());
	} catch (...) {
		throw Napi::Error::New(env, "duckdb-vortex: registration failed (unknown error)");
	}
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
	exports.Set("attach", Napi::Function::New(env, Attach));
	exports.Set("duckdbVersion", Napi::String::New(env, vortex::CompiledDuckDBVersion()));
	exports.Set("catalog", vortex_addon::CatalogObject(env));
	vortex_addon::AddTestHooks(env, exports);
	return exports;
}

} // namespace

NODE_API_MODULE(duckdb_vortex, Init)
