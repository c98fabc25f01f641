#include "stats_builder.hpp"

#include "halves_sum.hpp"
#include "string_range.hpp"
#include "../vector_loops.hpp"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <cstring>
#include <string>

namespace vtx {

namespace {

template <class T>
std::string RawBytes(T v) {
	return std::string(reinterpret_cast<const char *>(&v), sizeof(T));
}

//! The smallest and largest valid value and the exact sum of the valid values (HalvesSum) in one
//! pass the compiler vectorizes: a NULL row stands in as the type's largest value for the
//! minimum, its smallest for the maximum and 0 for the sum. (The branchy loop with a 128-bit sum
//! it replaces was the writer's most expensive pass over lineitem.)
template <class T>
struct IntSummary {
	T lo = std::numeric_limits<T>::max();
	T hi = std::numeric_limits<T>::lowest();
	HalvesSum<T> sum;
};

template <class T>
inline __attribute__((always_inline)) void Summarize(const uint8_t *__restrict fixed, const uint8_t *__restrict valid,
                                                     uint64_t n, IntSummary<T> &out) {
	IntSummary<T> r; // in locals, so that the loop's accumulators stay in registers
	if (!valid) {
		for (uint64_t i = 0; i < n; i++) {
			T v;
			std::memcpy(&v, fixed + i * sizeof(T), sizeof(T));
			r.lo = v < r.lo ? v : r.lo;
			r.hi = v > r.hi ? v : r.hi;
			r.sum.Add(HalvesSum<T>::Bits(v));
		}
		out = r;
		return;
	}
	// NULL rows masked with bit operations on a mask as wide as the values (all ones where valid):
	// selects on the validity byte kept the compiler from vectorising the loop.
	using B = decltype(HalvesSum<T>::Bits(T()));
	for (uint64_t i = 0; i < n; i++) {
		T v;
		std::memcpy(&v, fixed + i * sizeof(T), sizeof(T));
		const B bits = HalvesSum<T>::Bits(v);
		const B m = B(0) - static_cast<B>(valid[i] != 0);
		const B lo_bits = HalvesSum<T>::Bits(std::numeric_limits<T>::max()), hi_bits = HalvesSum<T>::Bits(std::numeric_limits<T>::lowest());
		const T a = static_cast<T>((bits & m) | (lo_bits & ~m)), b = static_cast<T>((bits & m) | (hi_bits & ~m));
		r.lo = a < r.lo ? a : r.lo;
		r.hi = b > r.hi ? b : r.hi;
		r.sum.Add(bits & m);
	}
	out = r;
}

// One clone set per type (VTX_VECTOR_LOOP does not apply to templates).
#define VTX_SUMMARIZE(T)                                                                                                \
	VTX_VECTOR_LOOP void SummarizeInts(const uint8_t *fixed, const uint8_t *valid, uint64_t n, IntSummary<T> &out) { \
		Summarize<T>(fixed, valid, n, out);                                                                             \
	}
VTX_SUMMARIZE(int8_t)
VTX_SUMMARIZE(int16_t)
VTX_SUMMARIZE(int32_t)
VTX_SUMMARIZE(int64_t)
VTX_SUMMARIZE(uint8_t)
VTX_SUMMARIZE(uint16_t)
VTX_SUMMARIZE(uint32_t)
VTX_SUMMARIZE(uint64_t)
#undef VTX_SUMMARIZE

//! Row i's value of a fixed-width column.
template <class T>
T LoadValue(const ColumnInput &in, uint64_t i) {
	T v;
	std::memcpy(&v, in.fixed + i * sizeof(T), sizeof(T));
	return v;
}

//! The smallest and largest of the values added, stored as the zone's exact min/max.
template <class T>
struct MinMax {
	bool have = false;
	T lo = 0, hi = 0;
	void Add(T v) {
		lo = !have || v < lo ? v : lo;
		hi = !have || v > hi ? v : hi;
		have = true;
	}
	void Store(ZoneStats &s) const {
		if (have) {
			s.has_minmax = s.minmax_exact = true;
			s.min = RawBytes(lo);
			s.max = RawBytes(hi);
		}
	}
};

template <class T>
void IntegerStats(const ColumnInput &in, ZoneStats &s) {
	if constexpr (sizeof(T) <= 8) {
		IntSummary<T> summary;
		SummarizeInts(in.fixed, in.valid, in.count, summary);
		if (s.NonNull() > 0) {
			s.has_minmax = s.minmax_exact = true;
			s.min = RawBytes(summary.lo);
			s.max = RawBytes(summary.hi);
		}
		s.has_int_sum = true;
		s.int_sum = summary.sum.Total();
		return;
	}
	// 16-byte integers: min and max only.
	MinMax<T> range;
	for (uint64_t i = 0; i < in.count; i++) {
		if (in.IsValid(i)) {
			range.Add(LoadValue<T>(in, i));
		}
	}
	range.Store(s);
}

template <class T>
void FloatStats(const ColumnInput &in, ZoneStats &s) {
	MinMax<T> range;
	FloatAccumulator sum;
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		const T v = LoadValue<T>(in, i);
		if (std::isnan(v)) {
			s.nans++;
			continue;
		}
		if (std::isinf(v)) {
			(v > 0 ? s.pos_inf : s.neg_inf)++;
		} else {
			sum.Add(static_cast<double>(v));
		}
		range.Add(v);
	}
	range.Store(s);
	s.has_exact_sum = true;
	s.exact_sum = sum.Sum();
}

void SetStringRange(const StringRange &range, ZoneStats &s, bool truncate) {
	if (range.Empty()) {
		return;
	}
	const StringRef &lo = range.Low(), &hi = range.High();
	s.has_minmax = true;
	const size_t limit = truncate ? kMaxStatString : SIZE_MAX;
	s.minmax_exact = lo.len <= limit && hi.len <= limit;
	s.min.assign(lo.ptr, std::min<size_t>(lo.len, limit));
	s.max.assign(hi.ptr, std::min<size_t>(hi.len, limit));
}

void StringStats(const ColumnInput &in, ZoneStats &s, bool truncate) {
	StringRange range;
	for (uint64_t i = 0; i < in.count; i++) {
		if (in.IsValid(i)) {
			range.Add(in.strings[i]);
		}
	}
	SetStringRange(range, s, truncate);
}

//! A small open-addressing set of at most kMaxDistinctValues keys (a quarter full at most),
//! in the order first seen. KEY has ==; the caller hashes it.
template <class KEY>
class DistinctSet {
public:
	DistinctSet() {
		std::memset(slot_, -1, sizeof(slot_));
	}
	//! False when `key` is new and the set is full (or its bytes would pass the limit).
	bool Insert(const KEY &key, uint64_t h, size_t key_bytes) {
		size_t k = h & (kSlots - 1);
		for (; slot_[k] >= 0; k = (k + 1) & (kSlots - 1)) {
			if (hash_[k] == h && keys_[slot_[k]] == key) {
				return true;
			}
		}
		if (count_ == kMaxDistinctValues || bytes_ + key_bytes > kMaxDistinctBytes) {
			return false;
		}
		slot_[k] = static_cast<int8_t>(count_);
		hash_[k] = h;
		keys_[count_++] = key;
		bytes_ += key_bytes;
		return true;
	}
	size_t Count() const {
		return count_;
	}
	const KEY &operator[](size_t i) const {
		return keys_[i];
	}

private:
	static constexpr size_t kSlots = 128;
	static_assert(kMaxDistinctValues * 4 <= kSlots, "the set stays at most a quarter full");
	int8_t slot_[kSlots];
	uint64_t hash_[kSlots];
	KEY keys_[kMaxDistinctValues];
	size_t count_ = 0;
	size_t bytes_ = 0;
};

inline uint64_t Mix(uint64_t a, uint64_t b) {
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

//! A string as its length and edge words, which decide equality up to 16 bytes; longer strings
//! whose length and edges agree are compared byte by byte.
struct StringKey {
	const char *ptr;
	uint32_t len;
	EdgeWords e;
	bool operator==(const StringKey &o) const {
		return len == o.len && e.a == o.e.a && e.b == o.e.b && (len <= 16 || std::memcmp(ptr, o.ptr, len) == 0);
	}
};

//! Every valid row's key (key_at(i)) into `set`; false as soon as it overflows. Runs of equal
//! values (clustered columns) cost one comparison a row.
template <class KEY, class KEY_AT, class HASH, class BYTES>
bool CollectDistinct(const ColumnInput &in, KEY_AT &&key_at, HASH &&hash, BYTES &&bytes, DistinctSet<KEY> &set) {
	bool have_last = false;
	KEY last {};
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		const KEY k = key_at(i);
		if (have_last && k == last) {
			continue;
		}
		if (!set.Insert(k, hash(k), bytes(k))) {
			return false;
		}
		last = k;
		have_last = true;
	}
	return true;
}

//! Fixed-width values (integers of 1 to 16 bytes), compared and hashed as words.
template <class T>
bool DistinctFixed(const ColumnInput &in, std::vector<std::string> &out) {
	DistinctSet<T> set;
	const auto key_at = [&](uint64_t i) {
		T v;
		std::memcpy(&v, in.fixed + i * sizeof(T), sizeof(T));
		return v;
	};
	const auto hash = [](const T &v) {
		uint64_t hi = 0;
		if constexpr (sizeof(T) > 8) {
			hi = static_cast<uint64_t>(v >> 64);
		}
		return Mix(static_cast<uint64_t>(v), hi);
	};
	if (!CollectDistinct(in, key_at, hash, [](const T &) { return sizeof(T); }, set)) {
		return false;
	}
	for (size_t i = 0; i < set.Count(); i++) {
		T v = set[i];
		out.emplace_back(reinterpret_cast<const char *>(&v), sizeof(T));
	}
	return true;
}

bool DistinctStrings(const ColumnInput &in, std::vector<std::string> &out) {
	DistinctSet<StringKey> set;
	const auto key_at = [&](uint64_t i) {
		auto &v = in.strings[i];
		return StringKey {v.ptr, v.len, EdgesOf(v.ptr, v.len)};
	};
	const auto hash = [](const StringKey &k) {
		uint64_t h = Mix(k.e.a ^ k.len, k.e.b);
		for (size_t j = 8; k.len > 16 && j + 8 <= k.len - 8; j += 8) {
			uint64_t w;
			std::memcpy(&w, k.ptr + j, 8);
			h = Mix(h, w);
		}
		return h;
	};
	if (!CollectDistinct(in, key_at, hash, [](const StringKey &k) { return size_t(k.len); }, set)) {
		return false;
	}
	for (size_t i = 0; i < set.Count(); i++) {
		out.emplace_back(set[i].ptr, set[i].len);
	}
	return true;
}

void SortRaw(std::vector<std::string> &values) {
	std::sort(values.begin(), values.end(),
	          [](const std::string &a, const std::string &b) { return CompareRawBytes(a, b) < 0; });
}

//! The distinct non-NULL values of a chunk, bytewise ascending, when there are at most
//! kMaxDistinctValues of them in at most kMaxDistinctBytes; false (early) otherwise. A value a
//! row is compared as words, not with memcmp (which took a tenth of a COPY of lineitem).
bool DistinctValues(const ColumnInput &in, std::vector<std::string> &out) {
	out.clear();
	bool ok = false;
	if (in.type.IsString()) {
		ok = DistinctStrings(in, out);
	} else {
		switch (in.type.ByteWidth()) {
		case 1: ok = DistinctFixed<uint8_t>(in, out); break;
		case 2: ok = DistinctFixed<uint16_t>(in, out); break;
		case 4: ok = DistinctFixed<uint32_t>(in, out); break;
		case 8: ok = DistinctFixed<uint64_t>(in, out); break;
		case 16: ok = DistinctFixed<uint128>(in, out); break;
		default: return false;
		}
	}
	if (!ok) {
		out.clear();
		return false;
	}
	SortRaw(out);
	return true;
}

//! DistinctValues from what the encoding settled.
bool KnownDistinct(const ValueHint &hint, std::vector<std::string> &out) {
	out.clear();
	size_t bytes = 0;
	for (auto &v : hint.values) {
		bytes += v.size();
	}
	if (hint.distinct != ValueHint::Distinct::ALL || hint.values.size() > kMaxDistinctValues || bytes > kMaxDistinctBytes) {
		return false;
	}
	out = hint.values;
	SortRaw(out);
	return true;
}

} // namespace

ZoneStats ComputeStats(const ColumnInput &in, bool truncate_strings, bool distinct, const ValueHint *hint) {
	ZoneStats s;
	s.rows = in.count;
	if (in.valid) {
		for (uint64_t i = 0; i < in.count; i++) {
			s.nulls += in.valid[i] ? 0 : 1;
		}
	}
	auto kind = in.type.Kind();
	auto width = in.type.ByteWidth();
	switch (kind) {
	case PhysicalKind::SIGNED:
		switch (width) {
		case 1: IntegerStats<int8_t>(in, s); break;
		case 2: IntegerStats<int16_t>(in, s); break;
		case 4: IntegerStats<int32_t>(in, s); break;
		case 8: IntegerStats<int64_t>(in, s); break;
		case 16: IntegerStats<int128>(in, s); break;
		}
		break;
	case PhysicalKind::UNSIGNED:
		switch (width) {
		case 1: IntegerStats<uint8_t>(in, s); break;
		case 2: IntegerStats<uint16_t>(in, s); break;
		case 4: IntegerStats<uint32_t>(in, s); break;
		case 8: IntegerStats<uint64_t>(in, s); break;
		case 16: IntegerStats<uint128>(in, s); break;
		}
		break;
	case PhysicalKind::FLOAT:
		if (width == 4) {
			FloatStats<float>(in, s);
		} else {
			FloatStats<double>(in, s);
		}
		break;
	case PhysicalKind::STRING:
		if (hint && hint->has_range) {
			SetStringRange(hint->range, s, truncate_strings);
		} else {
			StringStats(in, s, truncate_strings);
		}
		break;
	case PhysicalKind::OPAQUE:
		break;
	}
	if (distinct && DistinctType(in.type) && s.NonNull() > 0) {
		const bool known = hint && hint->distinct != ValueHint::Distinct::UNKNOWN;
		s.has_distinct = known ? KnownDistinct(*hint, s.distinct) : DistinctValues(in, s.distinct);
		if (!s.has_distinct) {
			s.distinct.clear();
		}
	}
	return s;
}

} // namespace vtx
