#pragma once
#include "duckdb.hpp"

namespace vortex {

// Every SQL setting of the extension, one row each: the only place a setting's name, type, default,
// description and TypeScript key (src/catalog.ts, "" where the TypeScript API has no flag for it)
// are written. RegisterSettings registers the rows, the addon exports them (test/catalog.test.ts
// checks them against duckdb_settings() and src/catalog.ts), and code reads a setting by its id.
// `master`: a feature under the master switch vortex_pushdown, read as false while that is off.
// `check`: what validates a value beyond its type (defined in settings.cpp), or nullptr.
//   X(id, name, type, default, master, ts_key, check, description)
#define VORTEX_SETTINGS(X)                                                                                            \
	X(PUSHDOWN, "vortex_pushdown", BOOLEAN, "true", false, "enabled", nullptr,                                        \
	  "Answer aggregates, filters and GROUP BY buckets over vortex_scan inside the reader (false: nothing "           \
	  "clever is done, whatever the vortex_pushdown_* settings say)")                                                 \
	X(PUSHDOWN_COUNT, "vortex_pushdown_count", BOOLEAN, "true", true, "count", nullptr,                               \
	  "Allow pushing count and count(*) into vortex_scan")                                                            \
	X(PUSHDOWN_SUM, "vortex_pushdown_sum", BOOLEAN, "true", true, "sum", nullptr, "Allow pushing sum into vortex_scan") \
	X(PUSHDOWN_AVG, "vortex_pushdown_avg", BOOLEAN, "true", true, "avg", nullptr, "Allow pushing avg into vortex_scan") \
	X(PUSHDOWN_MIN, "vortex_pushdown_min", BOOLEAN, "true", true, "min", nullptr, "Allow pushing min into vortex_scan") \
	X(PUSHDOWN_MAX, "vortex_pushdown_max", BOOLEAN, "true", true, "max", nullptr, "Allow pushing max into vortex_scan") \
	X(PUSHDOWN_DISTINCT, "vortex_pushdown_distinct", BOOLEAN, "true", true, "distinct", nullptr,                      \
	  "Allow pushing count(DISTINCT x) into vortex_scan")                                                             \
	X(PUSHDOWN_APPROX_DISTINCT, "vortex_pushdown_approx_distinct", BOOLEAN, "true", true, "approx_distinct", nullptr, \
	  "Allow pushing approx_count_distinct into vortex_scan")                                                         \
	X(PUSHDOWN_GROUPED, "vortex_pushdown_grouped", BOOLEAN, "true", true, "grouped", nullptr,                         \
	  "Allow answering GROUP BY aggregates inside vortex_scan")                                                       \
	X(PUSHDOWN_ORDER, "vortex_pushdown_order", BOOLEAN, "true", true, "order", nullptr,                               \
	  "Allow a pushed GROUP BY to emit its groups in the query's ORDER BY on its keys")                               \
	X(PUSHDOWN_EXPRESSIONS, "vortex_pushdown_expressions", BOOLEAN, "true", true, "expressions", nullptr,             \
	  "Allow vortex_scan to evaluate filter expressions DuckDB would keep above it, and GROUP BY time buckets "       \
	  "and other monotone functions of a column")                                                                     \
	X(PUSHDOWN_SORTED_GROUPS, "vortex_pushdown_sorted_groups", BOOLEAN, "true", true, "sortedGroups", nullptr,        \
	  "Allow answering a GROUP BY with many groups inside vortex_scan where the files' zones are sorted by its "      \
	  "key")                                                                                                          \
	X(PUSHDOWN_COST_BASED, "vortex_pushdown_cost_based", BOOLEAN, "true", true, "costBased", nullptr,                 \
	  "Push a strategy only where its estimated cost is below DuckDB's plain scan and operator (false: "              \
	  "wherever the rules allow, to compare or test the pushed paths)")                                               \
	X(EXACT_FLOAT_SUMS, "vortex_exact_float_sums", BOOLEAN, "true", false, "", nullptr,                               \
	  "sum, avg, fsum and favg of a FLOAT or DOUBLE column of vortex_scan are the correctly rounded exact sum "       \
	  "(or mean) in every plan, as pushed plans are (false: DuckDB's own summation where not pushed)")                \
	X(METADATA_CACHE_SIZE, "vortex_metadata_cache_size", VARCHAR, "64MiB", false, "", CheckCacheSize,                 \
	  "Bytes of parsed .vtx footers kept in memory (like memory_limit: '64MiB', '1GB'; or bytes); least "             \
	  "recently used evicted first, 0 disables")                                                                      \
	X(SEGMENT_CACHE, "vortex_segment_cache", BOOLEAN, "true", false, "", nullptr,                                     \
	  "Keep decompressed .vtx segments that queries read more than once in memory for later queries (at most "        \
	  "256 MiB, released a second after the last scan ends)")                                                         \
	X(REMOTE_WHOLE_FILE_SIZE, "vortex_remote_whole_file_size", VARCHAR, "0", false, "", CheckWholeFileSize,             \
	  "A remote .vtx file (object storage) no larger than this is read whole when opened, in the one request its "     \
	  "footer takes, and kept in DuckDB's external file cache: a query reading its columns then makes no further "     \
	  "request (like memory_limit: '1MiB'; 0, the default: its last 64 KiB)")

enum class Setting : uint8_t {
#define VORTEX_SETTING_ID(id, ...) id,
	VORTEX_SETTINGS(VORTEX_SETTING_ID)
#undef VORTEX_SETTING_ID
};

struct SettingSpec {
	Setting id;
	const char *name;
	duckdb::LogicalTypeId type;
	const char *default_value;
	bool master; //! under the master switch vortex_pushdown
	const char *ts_key;
	duckdb::set_option_callback_t check;
	const char *description;
};

extern const SettingSpec kSettings[];
extern const size_t kSettingCount;
const SettingSpec &SpecOf(Setting id);
//! The row named `name`, or nullptr.
const SettingSpec *FindSetting(const std::string &name);

void RegisterSettings(duckdb::DBConfig &config);
//! Current value (SET or SET GLOBAL) of a BOOLEAN setting, its default when unset; false while the
//! master switch is off for a setting under it.
bool SettingEnabled(duckdb::ClientContext &context, Setting id);
//! The same for a setting named by string: one of ours (rules compiled in src/rules.ts carry
//! names) or one of DuckDB's own BOOLEAN settings (true when unset).
bool SettingEnabled(duckdb::ClientContext &context, const std::string &name);

//! vortex_metadata_cache_size for this context (SET, SET GLOBAL or the default), in bytes.
size_t MetadataCacheLimit(duckdb::ClientContext &context);
//! vortex_remote_whole_file_size in bytes (0: off).
uint64_t RemoteWholeFileSize(duckdb::ClientContext &context);
//! Parses a size, as for memory_limit ('64MiB', '1GB') or a number of bytes; throws an
//! InvalidInputException naming setting `id` when invalid.
size_t ParseCacheSize(const std::string &text, Setting id = Setting::METADATA_CACHE_SIZE);

} // namespace vortex
