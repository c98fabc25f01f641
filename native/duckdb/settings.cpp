#include "settings.hpp"

namespace vortex {

using namespace duckdb;

const char *const kPushdownSettings[8] = {"vortex_pushdown",     "vortex_pushdown_count",    "vortex_pushdown_sum",
                                          "vortex_pushdown_avg", "vortex_pushdown_min",      "vortex_pushdown_max",
                                          "vortex_pushdown_distinct", "vortex_pushdown_approx_distinct"};

const char *const kGroupedPushdownSetting = "vortex_pushdown_grouped";
const char *const kOrderPushdownSetting = "vortex_pushdown_order";
const char *const kExpressionPushdownSetting = "vortex_pushdown_expressions";
const char *const kSortedGroupsSetting = "vortex_pushdown_sorted_groups";
const char *const kCostBasedSetting = "vortex_pushdown_cost_based";
const char *const kExactFloatSumsSetting = "vortex_exact_float_sums";
const char *const kMetadataCacheSizeSetting = "vortex_metadata_cache_size";
const char *const kSegmentCacheSetting = "vortex_segment_cache";

size_t ParseCacheSize(const std::string &text) {
	auto t = StringUtil::Lower(text);
	StringUtil::Trim(t);
	if (t.empty()) {
		throw InvalidInputException("%s: a size is required (e.g. '64MiB', '1GB' or a number of bytes)",
		                            kMetadataCacheSizeSetting);
	}
	if (t.find_first_not_of("0123456789") == std::string::npos) {
		if (t.size() > 19) {
			throw InvalidInputException("%s: %s bytes is too large", kMetadataCacheSizeSetting, text);
		}
		return static_cast<size_t>(std::stoull(t));
	}
	try {
		return DBConfig::ParseMemoryLimit(t);
	} catch (std::exception &e) {
		ErrorData error(e);
		throw InvalidInputException("%s: cannot read \"%s\" as a size: %s", kMetadataCacheSizeSetting, text,
		                            error.RawMessage());
	}
}

namespace {
void CheckCacheSize(ClientContext &, SetScope, Value &parameter) {
	if (!parameter.IsNull()) {
		ParseCacheSize(parameter.ToString());
	}
}
} // namespace

size_t MetadataCacheLimit(ClientContext &context) {
	Value v;
	if (!context.TryGetCurrentSetting(kMetadataCacheSizeSetting, v) || v.IsNull()) {
		return ParseCacheSize(kDefaultMetadataCacheSize);
	}
	return ParseCacheSize(v.ToString());
}

void RegisterSettings(DBConfig &config) {
	config.AddExtensionOption(kMetadataCacheSizeSetting,
	                          "Bytes of parsed .vtx footers kept in memory (like memory_limit: '64MiB', '1GB'; or "
	                          "bytes); least recently used evicted first, 0 disables",
	                          LogicalType::VARCHAR, Value(kDefaultMetadataCacheSize), CheckCacheSize);
	config.AddExtensionOption(kSegmentCacheSetting,
	                          "Keep decompressed .vtx segments that queries read more than once in memory for later "
	                          "queries (at most 256 MiB, released a second after the last scan ends)",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	config.AddExtensionOption(kPushdownSettings[0], "Answer ungrouped aggregates over vortex_scan from zone statistics",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	for (int i = 1; i < 8; i++) {
		std::string fn = kPushdownSettings[i] + std::string("vortex_pushdown_").size();
		config.AddExtensionOption(kPushdownSettings[i], "Allow pushing " + fn + " into vortex_scan",
		                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	}
	config.AddExtensionOption(kGroupedPushdownSetting, "Allow answering GROUP BY aggregates inside vortex_scan",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	config.AddExtensionOption(kOrderPushdownSetting,
	                          "Allow a pushed GROUP BY to emit its groups in the query's ORDER BY on its keys",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	config.AddExtensionOption(kExpressionPushdownSetting,
	                          "Allow vortex_scan to evaluate filter expressions DuckDB would keep above it, and "
	                          "GROUP BY time buckets and other monotone functions of a column",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	config.AddExtensionOption(kExactFloatSumsSetting,
	                          "sum, avg, fsum and favg of a FLOAT or DOUBLE column of vortex_scan are the correctly rounded "
	                          "exact sum (or mean) in every plan, as pushed plans are (false: DuckDB's own summation where "
	                          "not pushed)",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	config.AddExtensionOption(kCostBasedSetting,
	                          "Push a strategy only where its estimated cost is below DuckDB's plain scan and operator "
	                          "(false: wherever the rules allow, to compare or test the pushed paths)",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
	config.AddExtensionOption(kSortedGroupsSetting,
	                          "Allow answering a GROUP BY with many groups inside vortex_scan where the files' zones are "
	                          "sorted by its key",
	                          LogicalType::BOOLEAN, Value::BOOLEAN(true));
}

namespace {
bool OwnValue(ClientContext &context, const std::string &name) {
	Value v;
	if (!context.TryGetCurrentSetting(name, v) || v.IsNull()) {
		return true;
	}
	return BooleanValue::Get(v.DefaultCastAs(LogicalType::BOOLEAN));
}
} // namespace

bool SettingEnabled(ClientContext &context, const std::string &name) {
	// vortex_pushdown is the master switch: off, nothing clever is done (aggregates, grouped and
	// sorted groups, expression filters, bucket keys, order), whatever the per-feature settings say.
	static const std::string kFeature = std::string(kPushdownSettings[0]) + "_";
	if (name.compare(0, kFeature.size(), kFeature) == 0 && !OwnValue(context, kPushdownSettings[0])) {
		return false;
	}
	return OwnValue(context, name);
}

} // namespace vortex
