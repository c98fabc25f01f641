#include "calendar.hpp"

#include <limits>

namespace vtx {
namespace compute {

namespace {

constexpr int64_t kMillis = 1000;
constexpr int64_t kSecond = 1000 * kMillis;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

//! Floor division and its non-negative remainder, for a positive divisor.
inline int64_t FloorDiv(int64_t a, int64_t b) {
	const int64_t q = a / b;
	return q - ((a % b) < 0 ? 1 : 0);
}
inline int64_t FloorMod(int64_t a, int64_t b) {
	const int64_t r = a % b;
	return r < 0 ? r + b : r;
}

//! Year, month and day of a day count (Howard Hinnant's civil_from_days; exact for any int64 day
//! whose year fits). The count is shifted to start on 0000-03-01 so that leap days end a year.
struct Civil {
	int64_t year;
	int64_t month; //! 1-12
	int64_t day;   //! 1-31
};
inline Civil CivilOf(int64_t days) {
	days += 719468;
	const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	const int64_t doe = days - era * 146097;                                  // [0, 146096]
	const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; // [0, 399]
	const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               // [0, 365], from March
	const int64_t mp = (5 * doy + 2) / 153;                                    // [0, 11], March = 0
	const int64_t month = mp < 10 ? mp + 3 : mp - 9;
	return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, doy - (153 * mp + 2) / 5 + 1};
}

inline bool Leap(int64_t year) {
	return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

//! A DateField of a day count.
inline int64_t FieldOfDay(TimestampKey key, int64_t days) {
	// 1970-01-01 was a Thursday: ISO 4, Sunday-first 4.
	if (key == TimestampKey::DAY_OF_WEEK) {
		return FloorMod(days + 4, 7);
	}
	if (key == TimestampKey::ISO_DAY_OF_WEEK) {
		return FloorMod(days + 3, 7) + 1;
	}
	static const int64_t kBeforeMonth[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
	const Civil c = CivilOf(days);
	switch (key) {
	case TimestampKey::YEAR: return c.year;
	case TimestampKey::QUARTER: return (c.month - 1) / 3 + 1;
	case TimestampKey::MONTH: return c.month;
	case TimestampKey::DAY_OF_MONTH: return c.day;
	case TimestampKey::DAY_OF_YEAR: return kBeforeMonth[c.month - 1] + c.day + (c.month > 2 && Leap(c.year) ? 1 : 0);
	default: return 0;
	}
}

//! t less its remainder: wrapping, not overflowing, on values no timestamp takes (a NULL row's bytes).
inline int64_t Truncate(int64_t t, int64_t unit) {
	return static_cast<int64_t>(static_cast<uint64_t>(t) - static_cast<uint64_t>(FloorMod(t, unit)));
}

inline int64_t KeyOf(TimestampKey key, int64_t t) {
	switch (key) {
	case TimestampKey::TRUNC_SECOND: return Truncate(t, kSecond);
	case TimestampKey::TRUNC_MINUTE: return Truncate(t, kMinute);
	case TimestampKey::TRUNC_HOUR: return Truncate(t, kHour);
	case TimestampKey::TRUNC_DAY: return Truncate(t, kDay);
	case TimestampKey::DAY: return FloorDiv(t, kDay);
	case TimestampKey::HOUR: return FloorMod(t, kDay) / kHour;
	case TimestampKey::MINUTE: return FloorMod(t, kHour) / kMinute;
	case TimestampKey::SECOND: return FloorMod(t, kMinute) / kSecond;
	case TimestampKey::MILLISECOND: return FloorMod(t, kMinute) / kMillis;
	default: return FieldOfDay(key, FloorDiv(t, kDay));
	}
}

constexpr uint64_t kRecentDays = 4096;

//! Whether the day's field comes from its year, month and day.
bool CivilField(TimestampKey key) {
	return DateField(key) && key != TimestampKey::DAY_OF_WEEK && key != TimestampKey::ISO_DAY_OF_WEEK;
}

//! out[i] = key_of(in[i]) for n values; false where one is +/-infinity (the type's largest and
//! smallest values), whose keys are an engine's convention.
template <class In, class Out, class KeyOf>
bool EachKey(const In *in, uint64_t n, Out *out, KeyOf key_of) {
	constexpr In kInfinity = std::numeric_limits<In>::max();
	bool finite = true;
	for (uint64_t i = 0; i < n; i++) {
		finite &= in[i] != kInfinity && in[i] != -kInfinity;
		out[i] = static_cast<Out>(key_of(in[i]));
	}
	return finite;
}

template <TimestampKey K, class Out>
bool Keys(const int64_t *in, uint64_t n, Out *out) {
	return EachKey(in, n, out, [](int64_t t) { return KeyOf(K, t); });
}

} // namespace

unsigned TimestampKeyWidth(TimestampKey key) {
	return key == TimestampKey::DAY ? 4 : 8;
}

bool DateField(TimestampKey key) {
	switch (key) {
	case TimestampKey::DAY_OF_WEEK:
	case TimestampKey::ISO_DAY_OF_WEEK:
	case TimestampKey::YEAR:
	case TimestampKey::QUARTER:
	case TimestampKey::MONTH:
	case TimestampKey::DAY_OF_MONTH:
	case TimestampKey::DAY_OF_YEAR: return true;
	default: return false;
	}
}

uint64_t TimestampKeyValues(TimestampKey key) {
	switch (key) {
	case TimestampKey::QUARTER: return 4;
	case TimestampKey::MONTH: return 12;
	case TimestampKey::DAY_OF_MONTH: return 31;
	case TimestampKey::DAY_OF_YEAR: return 366;
	case TimestampKey::HOUR: return 24;
	case TimestampKey::MINUTE:
	case TimestampKey::SECOND: return 60;
	case TimestampKey::MILLISECOND: return 60000;
	case TimestampKey::DAY_OF_WEEK:
	case TimestampKey::ISO_DAY_OF_WEEK: return 7;
	default: return 0;
	}
}

CalendarKeys::CalendarKeys(TimestampKey key) : key(key) {
	if (CivilField(key)) {
		recent.assign(kRecentDays, Slot {std::numeric_limits<int64_t>::min(), 0});
	}
}

int64_t CalendarKeys::Civil(int64_t days) {
	auto &slot = recent[static_cast<uint64_t>(days) & (kRecentDays - 1)];
	if (slot.day != days) {
		slot.day = days;
		slot.value = FieldOfDay(key, days);
	}
	return slot.value;
}

bool CalendarKeys::OfTimestamps(const int64_t *in, uint64_t n, void *out) {
	auto *o64 = static_cast<int64_t *>(out);
	if (CivilField(key)) {
		return EachKey(in, n, o64, [&](int64_t t) { return Civil(FloorDiv(t, kDay)); });
	}
	switch (key) {
	case TimestampKey::TRUNC_SECOND: return Keys<TimestampKey::TRUNC_SECOND>(in, n, o64);
	case TimestampKey::TRUNC_MINUTE: return Keys<TimestampKey::TRUNC_MINUTE>(in, n, o64);
	case TimestampKey::TRUNC_HOUR: return Keys<TimestampKey::TRUNC_HOUR>(in, n, o64);
	case TimestampKey::TRUNC_DAY: return Keys<TimestampKey::TRUNC_DAY>(in, n, o64);
	case TimestampKey::DAY: return Keys<TimestampKey::DAY>(in, n, static_cast<int32_t *>(out));
	case TimestampKey::HOUR: return Keys<TimestampKey::HOUR>(in, n, o64);
	case TimestampKey::MINUTE: return Keys<TimestampKey::MINUTE>(in, n, o64);
	case TimestampKey::SECOND: return Keys<TimestampKey::SECOND>(in, n, o64);
	case TimestampKey::MILLISECOND: return Keys<TimestampKey::MILLISECOND>(in, n, o64);
	case TimestampKey::DAY_OF_WEEK: return Keys<TimestampKey::DAY_OF_WEEK>(in, n, o64);
	case TimestampKey::ISO_DAY_OF_WEEK: return Keys<TimestampKey::ISO_DAY_OF_WEEK>(in, n, o64);
	default: return false;
	}
}

bool CalendarKeys::OfDates(const int32_t *in, uint64_t n, int64_t *out) {
	if (CivilField(key)) {
		return EachKey(in, n, out, [&](int32_t days) { return Civil(days); });
	}
	if (!DateField(key)) {
		return false;
	}
	return EachKey(in, n, out, [&](int32_t days) { return FieldOfDay(key, days); });
}

} // namespace compute
} // namespace vtx
