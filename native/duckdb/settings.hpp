#pragma once
#include "duckdb.hpp"

namespace vortex {

//! BOOLEAN settings, default true: the master switch and one per aggregate family.
extern const char *const kPushdownSettings[6];
//! BOOLEAN, default true: GROUP BY aggregates may be answered inside the reader.
extern const char *const kGroupedPushdownSetting;

void RegisterSettings(duckdb::DBConfig &config);
//! Current value (SET or SET GLOBAL) of a BOOLEAN setting; true when unset.
bool SettingEnabled(duckdb::ClientContext &context, const std::string &name);

} // namespace vortex
