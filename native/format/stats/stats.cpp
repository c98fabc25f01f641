#include "stats.hpp"

#include "../domain.hpp"
#include "../file/metadata.hpp"
#include "../utf8.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace vtx {

namespace {
enum : uint8_t {
	HAS_MINMAX = 1,
	MINMAX_EXACT = 2,
	HAS_INT_SUM = 4,
	HAS_FLOAT_SUM = 8,
	HAS_EXACT_SUM = 16,
	HAS_SKETCH = 32,
	HAS_DISTINCT = 64
};

//! The largest register a HyperLogLog of 2^6 registers over 64-bit hashes can hold (58 + 1).
constexpr uint8_t kMaxRegister = 59;

template <class T>
T Load(const std::string &raw) {
	T v;
	std::memcpy(&v, raw.data(), sizeof(T));
	return v;
}

// Checks what a reader can check without data: min <= max, and that the exact integer sum is
// one that `non_null` values between min and max can have. Statistics answer queries and prune
// zones, so statistics that contradict themselves are a corrupt file, not an answer.
template <class T>
void CheckIntegerStats(const ZoneStats &s, const ColumnType &type) {
	if (!s.has_minmax) {
		// No value (the caller checked that min/max exist exactly when values do): nothing to add up.
		if (s.has_int_sum && s.int_sum != 0) {
			throw FormatError("zone statistics have a nonzero sum without values");
		}
		return;
	}
	auto lo = Load<T>(s.min), hi = Load<T>(s.max);
	if (hi < lo) {
		throw FormatError("zone statistics have min > max");
	}
	if (!InDomain(type, s.min) || !InDomain(type, s.max)) {
		throw FormatError("zone statistics of a " + type.ToString() + " column hold a value outside its domain");
	}
	if (s.has_int_sum && sizeof(T) <= 8) {
		// |value| < 2^64 and rows <= 2^30 (checked first), so these products fit in int128.
		const int128 n = static_cast<int128>(s.NonNull());
		if (s.int_sum < n * static_cast<int128>(lo) || s.int_sum > n * static_cast<int128>(hi)) {
			throw FormatError("zone statistics have a sum outside what their min and max allow");
		}
	}
}

template <class T>
void CheckFloatStats(const ZoneStats &s) {
	if (s.has_float_sum && std::isnan(s.finite_sum)) {
		throw FormatError("zone statistics have a NaN sum of finite values");
	}
	const uint64_t finite = s.NonNull() - s.nans - s.pos_inf - s.neg_inf;
	if (!s.has_minmax) {
		if ((s.has_float_sum && s.finite_sum != 0) || (s.has_exact_sum && !s.exact_sum.IsZero())) {
			throw FormatError("zone statistics have a nonzero sum without values");
		}
		return;
	}
	auto lo = Load<T>(s.min), hi = Load<T>(s.max);
	if (std::isnan(lo) || std::isnan(hi) || hi < lo) {
		throw FormatError("zone statistics have an invalid float min/max");
	}
	if ((s.pos_inf > 0) != (hi == INFINITY) || (s.neg_inf > 0) != (lo == -INFINITY)) {
		throw FormatError("zone statistics disagree about infinities");
	}
	if (s.has_exact_sum) {
		// `finite` values within [lo, hi] add up to a sum within finite * [lo, hi]; rounding is
		// monotone and each product is rounded once, so the rounded sum lies between them too.
		const double n = static_cast<double>(finite), sum = s.exact_sum.Round();
		if ((finite == 0 && !s.exact_sum.IsZero()) || sum < n * static_cast<double>(lo) ||
		    sum > n * static_cast<double>(hi)) {
			throw FormatError("zone statistics have a sum outside what their min and max allow");
		}
	}
}

void CheckStringStats(const ZoneStats &s, const ColumnType &type) {
	if (!s.has_minmax || !s.minmax_exact) {
		return; // inexact (truncated) bounds are never used, and may end inside a character
	}
	if (type.IsUtf8() && (!ValidUtf8(reinterpret_cast<const uint8_t *>(s.min.data()), s.min.size()) ||
	                                   !ValidUtf8(reinterpret_cast<const uint8_t *>(s.max.data()), s.max.size()))) {
		throw FormatError("zone statistics of a VARCHAR column are not valid UTF-8");
	}
	auto n = std::min(s.min.size(), s.max.size());
	int c = n ? std::memcmp(s.min.data(), s.max.data(), n) : 0;
	if (c > 0 || (c == 0 && s.min.size() > s.max.size())) {
		throw FormatError("zone statistics have min > max");
	}
}

//! A zone's distinct values: ascending, of the type's width, as many as the statistics allow,
//! and (where the bounds are exact) starting at the min and ending at the max.
void CheckDistinct(const ZoneStats &s, const ColumnType &type) {
	if (!DistinctType(type)) {
		throw FormatError("zone statistics keep distinct values for a type that has none");
	}
	auto &d = s.distinct;
	size_t bytes = 0;
	for (size_t i = 0; i < d.size(); i++) {
		bytes += d[i].size();
		if (!type.IsString() && d[i].size() != type.ByteWidth()) {
			throw FormatError("zone statistics have distinct values of the wrong width");
		}
		if (i > 0 && CompareRawBytes(d[i - 1], d[i]) >= 0) {
			throw FormatError("zone statistics have distinct values out of order");
		}
	}
	if (d.empty() != (s.NonNull() == 0) || d.size() > s.NonNull() || d.size() > kMaxDistinctValues ||
	    bytes > kMaxDistinctBytes) {
		throw FormatError("zone statistics have a distinct count their rows cannot have");
	}
	// Strings sort bytewise, as their bounds do; fixed-width values sort by their bytes, not their
	// values, but hold both bounds all the same.
	const auto less = [](const std::string &a, const std::string &b) { return CompareRawBytes(a, b) < 0; };
	if (s.has_minmax && s.minmax_exact && !d.empty() &&
	    (type.IsString() ? d.front() != s.min || d.back() != s.max
	                     : !std::binary_search(d.begin(), d.end(), s.min, less) ||
	                           !std::binary_search(d.begin(), d.end(), s.max, less))) {
		throw FormatError("zone statistics have distinct values that disagree with their min and max");
	}
	for (auto &v : d) {
		if (!type.IsString() && !InDomain(type, v)) {
			throw FormatError("zone statistics of a " + type.ToString() + " column hold a value outside its domain");
		}
		if (type.IsUtf8() && !ValidUtf8(reinterpret_cast<const uint8_t *>(v.data()), v.size())) {
			throw FormatError("zone statistics of a VARCHAR column are not valid UTF-8");
		}
	}
}

void CheckConsistent(const ZoneStats &s, const ColumnType &type) {
	// A chunk with a non-null, non-NaN value of an ordered type has a min/max, and only then.
	const bool has_values = s.NonNull() > s.nans;
	if (type.Ordered() && s.has_minmax != has_values) {
		throw FormatError(has_values ? "zone statistics lack a min/max" : "zone statistics have a min/max without values");
	}
	if (s.has_int_sum != type.HasIntegerSum() || (s.has_float_sum || s.has_exact_sum) != type.IsFloat()) {
		throw FormatError("zone statistics lack the sum their column type requires");
	}
	switch (type.Kind()) {
	case PhysicalKind::SIGNED:
		switch (type.ByteWidth()) {
		case 1: return CheckIntegerStats<int8_t>(s, type);
		case 2: return CheckIntegerStats<int16_t>(s, type);
		case 4: return CheckIntegerStats<int32_t>(s, type);
		case 8: return CheckIntegerStats<int64_t>(s, type);
		default: return CheckIntegerStats<int128>(s, type);
		}
	case PhysicalKind::UNSIGNED:
		switch (type.ByteWidth()) {
		case 1: return CheckIntegerStats<uint8_t>(s, type);
		case 2: return CheckIntegerStats<uint16_t>(s, type);
		case 4: return CheckIntegerStats<uint32_t>(s, type);
		case 8: return CheckIntegerStats<uint64_t>(s, type);
		default: return CheckIntegerStats<uint128>(s, type);
		}
	case PhysicalKind::FLOAT:
		return type.ByteWidth() == 4 ? CheckFloatStats<float>(s) : CheckFloatStats<double>(s);
	case PhysicalKind::STRING:
		return CheckStringStats(s, type);
	case PhysicalKind::OPAQUE:
		return;
	}
}

} // namespace

int CompareRawBytes(const std::string &a, const std::string &b) {
	auto n = std::min(a.size(), b.size());
	int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
	return c != 0 ? c : a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

bool DistinctType(const ColumnType &type) {
	const auto kind = type.Kind();
	return !type.NeedsVersion3() && (kind == PhysicalKind::SIGNED || kind == PhysicalKind::UNSIGNED || kind == PhysicalKind::STRING);
}

void ZoneStats::Serialize(ByteWriter &w) const {
	w.Var(rows);
	w.Var(nulls);
	w.Var(nans);
	w.Var(pos_inf);
	w.Var(neg_inf);
	uint8_t flags = (has_minmax ? HAS_MINMAX : 0) | (minmax_exact ? MINMAX_EXACT : 0) |
	                (has_int_sum ? HAS_INT_SUM : 0) | (has_float_sum ? HAS_FLOAT_SUM : 0) |
	                (has_exact_sum ? HAS_EXACT_SUM : 0) | (has_sketch ? HAS_SKETCH : 0) |
	                (has_distinct ? HAS_DISTINCT : 0);
	w.U8(flags);
	if (has_minmax) {
		w.Str(min);
		w.Str(max);
	}
	if (has_int_sum) {
		w.Put(int_sum);
	}
	if (has_float_sum) {
		w.Put(finite_sum);
	}
	if (has_exact_sum) {
		exact_sum.Serialize(w);
	}
	if (has_sketch) {
		w.Bytes(sketch.data(), sketch.size());
	}
	if (has_distinct) {
		w.Var(distinct.size());
		for (auto &v : distinct) {
			w.Str(v);
		}
	}
}

ZoneStats ZoneStats::Deserialize(ByteReader &r, const ColumnType &type, uint32_t version) {
	ZoneStats s;
	s.rows = r.Var();
	s.nulls = r.Var();
	s.nans = r.Var();
	s.pos_inf = r.Var();
	s.neg_inf = r.Var();
	if (s.rows > kMaxZoneRows) {
		throw FormatError("zone statistics count more rows than a zone can hold");
	}
	if (s.nulls > s.rows || s.nans > s.rows - s.nulls || s.pos_inf > s.rows - s.nulls - s.nans ||
	    s.neg_inf > s.rows - s.nulls - s.nans - s.pos_inf) {
		throw FormatError("zone statistics have inconsistent counts");
	}
	if (!type.IsFloat() && (s.nans || s.pos_inf || s.neg_inf)) {
		throw FormatError("zone statistics count NaN or infinity for a non-float column");
	}
	auto flags = r.U8();
	if (flags & ~uint8_t(HAS_MINMAX | MINMAX_EXACT | HAS_INT_SUM | HAS_FLOAT_SUM | HAS_EXACT_SUM | HAS_SKETCH | HAS_DISTINCT)) {
		throw FormatError("zone statistics have unknown flags");
	}
	if ((flags & (HAS_SKETCH | HAS_DISTINCT)) && version < kExactFloatSumVersion) {
		throw FormatError("zone statistics of a version " + std::to_string(version) + " file have sketches or distinct values");
	}
	// Each version has one form of float sum: rounded before version 4, exact from then on.
	if ((flags & HAS_FLOAT_SUM) && version >= kExactFloatSumVersion) {
		throw FormatError("zone statistics of a version " + std::to_string(version) + " file have a rounded float sum");
	}
	if ((flags & HAS_EXACT_SUM) && version < kExactFloatSumVersion) {
		throw FormatError("zone statistics of a version " + std::to_string(version) + " file have an exact float sum");
	}
	s.has_minmax = flags & HAS_MINMAX;
	s.minmax_exact = flags & MINMAX_EXACT;
	s.has_int_sum = flags & HAS_INT_SUM;
	s.has_float_sum = flags & HAS_FLOAT_SUM;
	s.has_exact_sum = flags & HAS_EXACT_SUM;
	s.has_sketch = flags & HAS_SKETCH;
	s.has_distinct = flags & HAS_DISTINCT;
	if (s.has_minmax) {
		if (!type.Ordered()) {
			throw FormatError("zone statistics have min/max for an unordered type");
		}
		s.min = r.Str();
		s.max = r.Str();
		if (!type.IsString() && (s.min.size() != type.ByteWidth() || s.max.size() != type.ByteWidth())) {
			throw FormatError("zone statistics min/max have the wrong width");
		}
		if (!type.IsString() && !s.minmax_exact) {
			throw FormatError("zone statistics mark a fixed-width min/max inexact");
		}
	} else if (s.minmax_exact) {
		throw FormatError("zone statistics are exact without a min/max");
	}
	if (s.has_int_sum) {
		if (!type.HasIntegerSum()) {
			throw FormatError("zone statistics have an integer sum for a non-integer column");
		}
		s.int_sum = r.Get<int128>();
	}
	if (s.has_float_sum) {
		if (!type.IsFloat()) {
			throw FormatError("zone statistics have a float sum for a non-float column");
		}
		s.finite_sum = r.Get<double>();
	}
	if (s.has_exact_sum) {
		if (!type.IsFloat()) {
			throw FormatError("zone statistics have a float sum for a non-float column");
		}
		s.exact_sum = ExactSum::Deserialize(r);
	}
	if (s.has_sketch) {
		if (type.NeedsVersion3()) {
			throw FormatError("zone statistics have a sketch for a nested column");
		}
		std::memcpy(s.sketch.data(), r.Take(s.sketch.size()), s.sketch.size());
		for (auto reg : s.sketch) {
			if (reg > kMaxRegister) {
				throw FormatError("zone statistics have a sketch register out of range");
			}
		}
	}
	if (s.has_distinct) {
		s.distinct.resize(r.Count(1));
		for (auto &v : s.distinct) {
			v = r.Str();
		}
		CheckDistinct(s, type);
	}
	CheckConsistent(s, type);
	return s;
}

} // namespace vtx
