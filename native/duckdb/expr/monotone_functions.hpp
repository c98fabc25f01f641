// Functions of one column that never decrease as the column grows: `date_trunc('hour', ts)`,
// `time_bucket(INTERVAL '15 minutes', ts)`, `ts::DATE`, `year(ts)`, `id // 1000`; and calendar
// fields, which do not (`month(ts)`, `hour(ts)`), but are one value within a unit of time. Grouped
// scans use them as bucket keys (pushdown/bucket_keys.hpp), and zone filters decide comparisons of
// them from a zone's min and max (zone_bounds.hpp). Where a function depends on the TimeZone
// setting (TIMESTAMP WITH TIME ZONE), local time can run backwards at a transition, so it counts
// as monotone only while TimeZone is UTC.
#pragma once
#include "../../compute/calendar.hpp"
#include "duckdb.hpp"
#include "duckdb/common/enums/date_part_specifier.hpp"

namespace vortex {

//! Where `key` is a bucket function whose only non-constant input is one column expression:
//! that input (to be resolved to a scan column by the caller) and whether it is monotone
//! (non-decreasing) in that input, so that a zone's min and max bound its results.
bool BucketFunction(duckdb::ClientContext &context, const duckdb::Expression &key, const duckdb::Expression *&input,
                    bool &monotone);

//! A calendar field: the date_trunc unit within which it is one value, and the one within which
//! it never decreases (null where none is).
struct CalendarField {
	const char *name, *unit, *parent;
	//! Computed by native/compute's calendar kernel (calendar_kernels.hpp), and as which key.
	bool computed;
	vtx::compute::TimestampKey key;
};

//! Where `e` is a calendar field of a DATE or TIMESTAMP expression (not TIMESTAMP WITH TIME ZONE,
//! whose fields are local time): the field, and that expression as `input`.
const CalendarField *CalendarFieldOf(const duckdb::Expression &e, const duckdb::Expression *&input);

//! Where `e` is date_trunc(part, input) with a constant part: the part, as DuckDB reads it, and
//! the input.
bool DateTruncOf(const duckdb::Expression &e, duckdb::DatePartSpecifier &part, const duckdb::Expression *&input);

//! date_trunc(unit, input), bound by DuckDB; null where it does not bind.
duckdb::unique_ptr<duckdb::Expression> TruncationOf(duckdb::ClientContext &context, const char *unit,
                                                    duckdb::unique_ptr<duckdb::Expression> input);

} // namespace vortex
