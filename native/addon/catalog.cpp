#include "catalog.hpp"

#include "../duckdb/pushdown/aggregate_catalog.hpp"

namespace vortex_addon {

namespace {
Napi::Value OrNull(Napi::Env env, const char *text) {
	return text ? Napi::String::New(env, text) : env.Null();
}

Napi::Array SettingRows(Napi::Env env) {
	auto rows = Napi::Array::New(env, vortex::kSettingCount);
	for (size_t i = 0; i < vortex::kSettingCount; i++) {
		auto &spec = vortex::kSettings[i];
		auto row = Napi::Object::New(env);
		row.Set("name", spec.name);
		row.Set("type", duckdb::LogicalType(spec.type).ToString());
		row.Set("default", spec.default_value);
		row.Set("master", spec.master);
		row.Set("key", *spec.ts_key ? Napi::Value(Napi::String::New(env, spec.ts_key)) : env.Null());
		row.Set("description", spec.description);
		rows.Set(static_cast<uint32_t>(i), row);
	}
	return rows;
}

Napi::Array AggregateRows(Napi::Env env) {
	auto rows = Napi::Array::New(env, vortex::kAggregateCount);
	for (size_t i = 0; i < vortex::kAggregateCount; i++) {
		auto &spec = vortex::kAggregates[i];
		auto row = Napi::Object::New(env);
		auto names = Napi::Array::New(env);
		for (auto n = spec.names; *n; n++) {
			names.Set(names.Length(), *n);
		}
		row.Set("kind", spec.kind_name);
		row.Set("names", names);
		row.Set("distinct", spec.distinct);
		row.Set("rule", OrNull(env, spec.rule_name));
		row.Set("setting", vortex::SpecOf(spec.setting).name);
		row.Set("notPerGroup", OrNull(env, spec.not_per_group));
		rows.Set(static_cast<uint32_t>(i), row);
	}
	return rows;
}
} // namespace

Napi::Object CatalogObject(Napi::Env env) {
	auto catalog = Napi::Object::New(env);
	catalog.Set("settings", SettingRows(env));
	catalog.Set("aggregates", AggregateRows(env));
	return catalog;
}

} // namespace vortex_addon
