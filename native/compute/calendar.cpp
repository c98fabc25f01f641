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
	// 1970-01-01 was a Thursday: ISO 4, Sunday-first 4.
	case TimestampKey::DAY_OF_WEEK: return FloorMod(FloorDiv(t, kDay) + 4, 7);
	case TimestampKey::ISO_DAY_OF_WEEK: return FloorMod(FloorDiv(t, kDay) + 3, 7) + 1;
	}
	return 0;
}

template <TimestampKey K, class Out>
bool Keys(const int64_t *in, uint64_t n, Out *out) {
	constexpr int64_t kInfinity = std::numeric_limits<int64_t>::max();
	bool finite = true;
	for (uint64_t i = 0; i < n; i++) {
		const int64_t t = in[i];
		finite &= t != kInfinity && t != -kInfinity;
		out[i] = static_cast<Out>(KeyOf(K, t));
	}
	return finite;
}

} // namespace

unsigned TimestampKeyWidth(TimestampKey key) {
	return key == TimestampKey::DAY ? 4 : 8;
}

uint64_t TimestampKeyValues(TimestampKey key) {
	switch (key) {
	case TimestampKey::HOUR: return 24;
	case TimestampKey::MINUTE:
	case TimestampKey::SECOND: return 60;
	case TimestampKey::MILLISECOND: return 60000;
	case TimestampKey::DAY_OF_WEEK:
	case TimestampKey::ISO_DAY_OF_WEEK: return 7;
	default: return 0;
	}
}

bool TimestampKeys(TimestampKey key, const int64_t *in, uint64_t n, void *out) {
	auto *o64 = static_cast<int64_t *>(out);
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
	}
	return false;
}

} // namespace compute
} // namespace vtx
