// Group keys of timestamps computed without a query engine: truncations to a fixed unit, the day,
// and the calendar fields that depend only on the time of day or the day of the week. Timestamps
// are microseconds since 1970-01-01 00:00:00 without a time zone; the calendar is the proleptic
// Gregorian one, and days begin at midnight, so each key is floor division and remainders.
// (Months and years vary in length; they are left to the engine.) A query engine's own function
// is the reference: the DuckDB layer checks each kernel against DuckDB's executor in its tests.
#pragma once
#include <cstdint>

namespace vtx {
namespace compute {

enum class TimestampKey : uint8_t {
	TRUNC_SECOND, //! the timestamp of the second's start
	TRUNC_MINUTE,
	TRUNC_HOUR,
	TRUNC_DAY,    //! the timestamp of the day's midnight
	DAY,          //! the day, as days since 1970-01-01 (a DATE), 32-bit
	HOUR,         //! 0-23
	MINUTE,       //! 0-59
	SECOND,       //! 0-59
	MILLISECOND,  //! 0-59999: the second's milliseconds and the minute's seconds
	DAY_OF_WEEK,  //! Sunday 0 to Saturday 6
	ISO_DAY_OF_WEEK, //! Monday 1 to Sunday 7
};

//! The width of a key: 4 bytes for DAY, else 8 (signed).
unsigned TimestampKeyWidth(TimestampKey key);

//! How many values a field takes (24 hours, 7 days of the week); 0 for truncations and DAY.
uint64_t TimestampKeyValues(TimestampKey key);

//! The keys of n timestamps into `out` (n keys of TimestampKeyWidth bytes). The largest and
//! smallest values stand for +/-infinity, whose keys are an engine's own convention: where any
//! of the n values is one, nothing is promised of `out` and the result is false.
bool TimestampKeys(TimestampKey key, const int64_t *in, uint64_t n, void *out);

} // namespace compute
} // namespace vtx
