// Group keys of timestamps and dates computed without a query engine: truncations to a fixed
// unit, the day, and calendar fields. Timestamps are microseconds since 1970-01-01 00:00:00
// without a time zone, dates days since 1970-01-01; the calendar is the proleptic Gregorian one
// with astronomical years, and days begin at midnight, so time-of-day keys are floor division and
// remainders, and a day's fields come from Howard Hinnant's civil_from_days. A query engine's own
// function is the reference: the DuckDB layer checks each kernel against DuckDB's in its tests.
#pragma once
#include <cstdint>
#include <vector>

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
	YEAR,         //! astronomical: 0 is 1 BC, -1 is 2 BC
	QUARTER,      //! 1-4
	MONTH,        //! 1-12
	DAY_OF_MONTH, //! 1-31
	DAY_OF_YEAR,  //! 1-366
};

//! Whether the key depends on the day alone (then dates have it too, DateKeys).
bool DateField(TimestampKey key);

//! The width of a key: 4 bytes for DAY, else 8 (signed).
unsigned TimestampKeyWidth(TimestampKey key);

//! How many values a field takes (24 hours, 7 days of the week); 0 for truncations and DAY.
uint64_t TimestampKeyValues(TimestampKey key);

//! One key's kernel. A day's year, month and day take a dozen 64-bit divisions (more than DuckDB's
//! own tables), and event data repeats its days, so those fields are kept for recent days in a
//! small direct-mapped cache; hence one object per key and thread.
class CalendarKeys {
public:
	explicit CalendarKeys(TimestampKey key);

	TimestampKey Key() const {
		return key;
	}

	//! The keys of n timestamps into `out` (n keys of TimestampKeyWidth bytes). The largest and
	//! smallest values stand for +/-infinity, whose keys are an engine's own convention: where any
	//! of the n values is one, nothing is promised of `out` and the result is false.
	bool OfTimestamps(const int64_t *in, uint64_t n, void *out);

	//! A DateField of n dates, as days since 1970-01-01, into `out` (8 bytes each); false where one
	//! is +/-infinity (the largest and smallest values), as for timestamps, or the key is no DateField.
	bool OfDates(const int32_t *in, uint64_t n, int64_t *out);

private:
	struct Slot {
		int64_t day;
		int64_t value;
	};
	TimestampKey key;
	std::vector<Slot> recent; //! civil fields only: by the day's low bits

	int64_t Civil(int64_t days);
};

} // namespace compute
} // namespace vtx
