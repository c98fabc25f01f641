#include "domain.hpp"

#include "error.hpp"

#include <cstring>

namespace vtx {

namespace {

constexpr int64_t kMicrosPerDay = int64_t(86400) * 1000000; // TIME '24:00:00' is valid in DuckDB
constexpr int64_t kNanosPerDay = kMicrosPerDay * 1000;      // and so is TIME_NS '24:00:00'
// TIME WITH TIME ZONE packs micros << 24 | (kMaxOffset - offset seconds), |offset| <= 15:59:59.
constexpr uint64_t kMaxTzOffset = 16 * 60 * 60 - 1;

int128 PowerOfTen(int p) {
	int128 r = 1;
	for (int i = 0; i < p; i++) {
		r *= 10;
	}
	return r;
}

template <class T>
bool DecimalOk(const uint8_t *p, int128 bound) {
	T v;
	std::memcpy(&v, p, sizeof(T));
	return static_cast<int128>(v) < bound && static_cast<int128>(v) > -bound;
}

bool ValueOk(const ColumnType &type, const uint8_t *p, int128 decimal_bound) {
	switch (type.id) {
	case TypeId::BOOL:
		return *p <= 1;
	case TypeId::TIME: {
		int64_t v;
		std::memcpy(&v, p, 8);
		return v >= 0 && v <= kMicrosPerDay;
	}
	case TypeId::TIME_NS: {
		int64_t v;
		std::memcpy(&v, p, 8);
		return v >= 0 && v <= kNanosPerDay;
	}
	case TypeId::TIME_TZ: {
		uint64_t v;
		std::memcpy(&v, p, 8);
		return (v >> 24) <= static_cast<uint64_t>(kMicrosPerDay) && (v & 0xFFFFFF) <= 2 * kMaxTzOffset;
	}
	case TypeId::DECIMAL:
		switch (type.ByteWidth()) {
		case 2: return DecimalOk<int16_t>(p, decimal_bound);
		case 4: return DecimalOk<int32_t>(p, decimal_bound);
		case 8: return DecimalOk<int64_t>(p, decimal_bound);
		default: return DecimalOk<int128>(p, decimal_bound);
		}
	default:
		return true;
	}
}

const char *Describe(const ColumnType &type) {
	switch (type.id) {
	case TypeId::BOOL: return "a boolean other than true or false";
	case TypeId::TIME: return "a TIME outside 00:00:00 to 24:00:00";
	case TypeId::TIME_NS: return "a TIME_NS outside 00:00:00 to 24:00:00";
	case TypeId::TIME_TZ: return "a TIME WITH TIME ZONE outside its range";
	default: return "a DECIMAL with more digits than its precision";
	}
}

} // namespace

bool HasRestrictedDomain(const ColumnType &type) {
	return type.id == TypeId::BOOL || type.id == TypeId::TIME || type.id == TypeId::TIME_NS || type.id == TypeId::TIME_TZ ||
	       type.id == TypeId::DECIMAL;
}

namespace {

//! One pass without branches per value: the loops vectorise, and a hostile value is found
//! by looking again only when the pass says there is one.
template <class T>
bool AllWithin(const uint8_t *values, uint64_t n, T lo, T hi) {
	bool bad = false;
	for (uint64_t i = 0; i < n; i++) {
		T v;
		std::memcpy(&v, values + i * sizeof(T), sizeof(T));
		bad |= (v < lo) | (v > hi);
	}
	return !bad;
}

bool FastCheck(const ColumnType &type, const uint8_t *values, uint64_t n, int128 bound) {
	switch (type.id) {
	case TypeId::BOOL:
		return AllWithin<uint8_t>(values, n, 0, 1);
	case TypeId::TIME:
		return AllWithin<int64_t>(values, n, 0, kMicrosPerDay);
	case TypeId::TIME_NS:
		return AllWithin<int64_t>(values, n, 0, kNanosPerDay);
	case TypeId::DECIMAL:
		switch (type.ByteWidth()) {
		case 2: return AllWithin<int16_t>(values, n, static_cast<int16_t>(1 - bound), static_cast<int16_t>(bound - 1));
		case 4: return AllWithin<int32_t>(values, n, static_cast<int32_t>(1 - bound), static_cast<int32_t>(bound - 1));
		case 8: return AllWithin<int64_t>(values, n, static_cast<int64_t>(1 - bound), static_cast<int64_t>(bound - 1));
		default: return false;
		}
	default:
		return false;
	}
}

} // namespace

bool ValuesInDomain(const ColumnType &type, const uint8_t *values, uint64_t n) {
	if (!HasRestrictedDomain(type)) {
		return true;
	}
	const auto width = type.ByteWidth();
	const int128 bound = type.id == TypeId::DECIMAL ? PowerOfTen(type.width) : 0;
	if (FastCheck(type, values, n, bound)) {
		return true;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!ValueOk(type, values + i * width, bound)) {
			return false;
		}
	}
	return true;
}

void CheckDomain(const ColumnType &type, const uint8_t *values, uint64_t n) {
	if (!ValuesInDomain(type, values, n)) {
		throw FormatError(std::string("column of type ") + type.ToString() + " holds " + Describe(type));
	}
}

bool InDomain(const ColumnType &type, const std::string &raw) {
	if (!HasRestrictedDomain(type)) {
		return true;
	}
	if (raw.size() != type.ByteWidth()) {
		return false;
	}
	const int128 bound = type.id == TypeId::DECIMAL ? PowerOfTen(type.width) : 0;
	return ValueOk(type, reinterpret_cast<const uint8_t *>(raw.data()), bound);
}

} // namespace vtx
