#include "settings.hpp"

namespace vortex {

using namespace duckdb;

const char *const kPushdownSettings[6] = {"vortex_pushdown",     "vortex_pushdown_count", "vortex_pushdown_sum",
                                          "vortex_pushdown_avg", "vortex_pushdown_min",   "vortex_pushdown_max"};

const char *const kGroupedPushdownSetting = "vortex_pushdown_grouped";

void RegisterSettings(DBConfig &config) {
	config.AddExtensionOption(kPushdownSettings[0], "Answer ungrouped aggregates over vortex_scan from zone statistics",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	for (int i = 1; i < 6; i++) {
		std::string fn = kPushdownSettings[i] + std::string("vortex_pushdown_").size();
		config.AddExtensionOption(kPushdownSettings[i], "Allow pushing " + fn + " into vortex_scan",
		                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	}
	config.AddExtensionOption(kGroupedPushdownSetting, "Allow answering GROUP BY aggregates inside vortex_scan",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
}

bool SettingEnabled(ClientContext &context, const std::string &name) {
	Value v;
	if (!context.TryGetCurrentSetting(name, v) || v.IsNull()) {
		return true;
	}
	return BooleanValue::Get(v.DefaultCastAs(LogicalType::BOOLEAN));
}

} // namespace vortex
