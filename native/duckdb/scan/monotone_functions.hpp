// Functions of one column that never decrease as the column grows: `date_trunc('hour', ts)`,
// `time_bucket(INTERVAL '15 minutes', ts)`, `ts::DATE`, `year(ts)`, `id // 1000`. Grouped scans
// use them as bucket keys (pushdown/bucket_keys.hpp), and zone filters decide comparisons of them
// from a zone's min and max (zone_bounds.hpp). Where a function depends on the TimeZone setting
// (TIMESTAMP WITH TIME ZONE), local time can run backwards at a transition, so it counts as
// monotone only while TimeZone is UTC.
#pragma once
#include "duckdb.hpp"

namespace vortex {

//! Where `key` is a bucket function whose only non-constant input is one column expression:
//! that input (to be resolved to a scan column by the caller) and whether it is monotone
//! (non-decreasing) in that input, so that a zone's min and max bound its results.
bool BucketFunction(duckdb::ClientContext &context, const duckdb::Expression &key, const duckdb::Expression *&input,
                    bool &monotone);

} // namespace vortex
