#pragma once
#include "duckdb.hpp"

namespace vortex {

//! BOOLEAN settings, default true: the master switch and one per aggregate family (count, sum,
//! avg, min, max, count(DISTINCT), approx_count_distinct).
extern const char *const kPushdownSettings[8];
//! BOOLEAN, default true: GROUP BY aggregates may be answered inside the reader.
extern const char *const kGroupedPushdownSetting;
extern const char *const kOrderPushdownSetting; //! ORDER BY on a pushed GROUP BY's keys (grouped_order.hpp)
//! Filter expressions taken into vortex_scan (scan/expression_filter.hpp) and GROUP BY buckets.
extern const char *const kExpressionPushdownSetting;
//! BOOLEAN, default true: GROUP BY a key the zones are sorted by, as runs (pushdown/sorted_grouped_scan.hpp).
extern const char *const kSortedGroupsSetting;
//! BOOLEAN, default true: a strategy estimated to be slower than DuckDB's own plain plan is declined.
extern const char *const kCostBasedSetting;
//! BOOLEAN, default true: float sums and averages over .vtx columns are exact in every plan
//! (pushdown/exact_float_sums.hpp). Not under the master switch: it is about meaning, not speed.
extern const char *const kExactFloatSumsSetting;

//! BOOLEAN, default true: decompressed segments read twice are kept for later queries
//! (format/segment_cache.hpp).
extern const char *const kSegmentCacheSetting;

void RegisterSettings(duckdb::DBConfig &config);
//! Current value (SET or SET GLOBAL) of a BOOLEAN setting; true when unset. A vortex_pushdown_*
//! setting reads false while the master switch vortex_pushdown is off.
bool SettingEnabled(duckdb::ClientContext &context, const std::string &name);

//! vortex_metadata_cache_size: bytes of parsed footers the metadata cache keeps, a memory
//! size as for memory_limit ('64MiB', '1GB') or a number of bytes; 0 disables the cache.
extern const char *const kMetadataCacheSizeSetting;
constexpr const char *kDefaultMetadataCacheSize = "64MiB";
//! The limit in bytes for this context (SET, SET GLOBAL or the default).
size_t MetadataCacheLimit(duckdb::ClientContext &context);
//! Parses a cache size; throws an InvalidInputException naming the setting when invalid.
size_t ParseCacheSize(const std::string &text);

} // namespace vortex
