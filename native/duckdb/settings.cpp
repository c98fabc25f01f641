#include "settings.hpp"

namespace vortex {

using namespace duckdb;

namespace {
void CheckCacheSize(ClientContext &, SetScope, Value &parameter) {
	if (!parameter.IsNull()) {
		ParseCacheSize(parameter.ToString());
	}
}
void CheckWholeFileSize(ClientContext &, SetScope, Value &parameter) {
	if (!parameter.IsNull()) {
		ParseCacheSize(parameter.ToString(), Setting::REMOTE_WHOLE_FILE_SIZE);
	}
}
} // namespace

const SettingSpec kSettings[] = {
#define VORTEX_SETTING_ROW(id, name, type, default_value, master, ts_key, check, description)                          \
	{Setting::id, name, LogicalTypeId::type, default_value, master, ts_key, check, description},
    VORTEX_SETTINGS(VORTEX_SETTING_ROW)
#undef VORTEX_SETTING_ROW
};
const size_t kSettingCount = sizeof(kSettings) / sizeof(kSettings[0]);

const SettingSpec &SpecOf(Setting id) {
	return kSettings[static_cast<size_t>(id)];
}

const SettingSpec *FindSetting(const std::string &name) {
	for (auto &spec : kSettings) {
		if (name == spec.name) {
			return &spec;
		}
	}
	return nullptr;
}

size_t ParseCacheSize(const std::string &text, Setting id) {
	const char *setting = SpecOf(id).name;
	auto t = StringUtil::Lower(text);
	StringUtil::Trim(t);
	if (t.empty()) {
		throw InvalidInputException("%s: a size is required (e.g. '64MiB', '1GB' or a number of bytes)", setting);
	}
	if (t.find_first_not_of("0123456789") == std::string::npos) {
		if (t.size() > 19) {
			throw InvalidInputException("%s: %s bytes is too large", setting, text);
		}
		return static_cast<size_t>(std::stoull(t));
	}
	try {
		return DBConfig::ParseMemoryLimit(t);
	} catch (std::exception &e) {
		ErrorData error(e);
		throw InvalidInputException("%s: cannot read \"%s\" as a size: %s", setting, text, error.RawMessage());
	}
}

namespace {

Value DefaultOf(const SettingSpec &spec) {
	return Value(spec.default_value).DefaultCastAs(LogicalType(spec.type));
}

Value CurrentValue(ClientContext &context, const SettingSpec &spec) {
	Value v;
	if (!context.TryGetCurrentSetting(spec.name, v) || v.IsNull()) {
		return DefaultOf(spec);
	}
	return v;
}

bool OwnValue(ClientContext &context, const SettingSpec &spec) {
	return BooleanValue::Get(CurrentValue(context, spec).DefaultCastAs(LogicalType::BOOLEAN));
}
} // namespace

size_t MetadataCacheLimit(ClientContext &context) {
	return ParseCacheSize(CurrentValue(context, SpecOf(Setting::METADATA_CACHE_SIZE)).ToString());
}

uint64_t RemoteWholeFileSize(ClientContext &context) {
	const auto id = Setting::REMOTE_WHOLE_FILE_SIZE;
	return ParseCacheSize(CurrentValue(context, SpecOf(id)).ToString(), id);
}

void RegisterSettings(DBConfig &config) {
	for (auto &spec : kSettings) {
		config.AddExtensionOption(spec.name, spec.description, LogicalType(spec.type), DefaultOf(spec),
		                          spec.check);
	}
}

bool SettingEnabled(ClientContext &context, Setting id) {
	auto &spec = SpecOf(id);
	if (spec.master && !OwnValue(context, SpecOf(Setting::PUSHDOWN))) {
		return false;
	}
	return OwnValue(context, spec);
}

bool SettingEnabled(ClientContext &context, const std::string &name) {
	if (auto spec = FindSetting(name)) {
		return SettingEnabled(context, spec->id);
	}
	Value v;
	if (!context.TryGetCurrentSetting(name, v) || v.IsNull()) {
		return true;
	}
	return BooleanValue::Get(v.DefaultCastAs(LogicalType::BOOLEAN));
}

} // namespace vortex
