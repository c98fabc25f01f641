#include "stats_builder.hpp"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>

namespace vtx {

namespace {

template <class T>
std::string RawBytes(T v) {
	return std::string(reinterpret_cast<const char *>(&v), sizeof(T));
}

template <class T>
void IntegerStats(const ColumnInput &in, ZoneStats &s) {
	bool have = false;
	T lo = 0, hi = 0;
	int128 sum = 0;
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		T v;
		std::memcpy(&v, in.fixed + i * sizeof(T), sizeof(T));
		if (!have) {
			lo = hi = v;
			have = true;
		} else {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		if (sizeof(T) <= 8) {
			sum += static_cast<int128>(v);
		}
	}
	if (have) {
		s.has_minmax = s.minmax_exact = true;
		s.min = RawBytes(lo);
		s.max = RawBytes(hi);
	}
	if (sizeof(T) <= 8) {
		s.has_int_sum = true;
		s.int_sum = sum;
	}
}

template <class T>
void FloatStats(const ColumnInput &in, ZoneStats &s) {
	bool have = false;
	T lo = 0, hi = 0;
	FloatAccumulator sum;
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		T v;
		std::memcpy(&v, in.fixed + i * sizeof(T), sizeof(T));
		if (std::isnan(v)) {
			s.nans++;
			continue;
		}
		if (std::isinf(v)) {
			(v > 0 ? s.pos_inf : s.neg_inf)++;
		} else {
			sum.Add(static_cast<double>(v));
		}
		if (!have) {
			lo = hi = v;
			have = true;
		} else {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	if (have) {
		s.has_minmax = s.minmax_exact = true;
		s.min = RawBytes(lo);
		s.max = RawBytes(hi);
	}
	s.has_exact_sum = true;
	s.exact_sum = sum.Sum();
}

int CompareBytes(const StringRef &a, const StringRef &b) {
	auto n = a.len < b.len ? a.len : b.len;
	int c = n ? std::memcmp(a.ptr, b.ptr, n) : 0;
	if (c != 0) {
		return c;
	}
	return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

//! The first eight bytes of a string as a big-endian number (zero-padded): where two strings'
//! prefixes differ, they order the strings as the bytes do.
inline uint64_t Prefix(const StringRef &v) {
	uint64_t w = 0;
	if (v.len) {
		std::memcpy(&w, v.ptr, v.len < 8 ? v.len : 8);
	}
	return __builtin_bswap64(w);
}

void StringStats(const ColumnInput &in, ZoneStats &s, bool truncate) {
	const StringRef *lo = nullptr, *hi = nullptr;
	uint64_t lo_prefix = 0, hi_prefix = 0;
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		auto &v = in.strings[i];
		const uint64_t prefix = Prefix(v);
		if (!lo) {
			lo = hi = &v;
			lo_prefix = hi_prefix = prefix;
			continue;
		}
		// Most rows fall strictly between the bounds on their first eight bytes.
		if (prefix > lo_prefix && prefix < hi_prefix) {
			continue;
		}
		if (prefix < lo_prefix || (prefix == lo_prefix && CompareBytes(v, *lo) < 0)) {
			lo = &v;
			lo_prefix = prefix;
		}
		if (prefix > hi_prefix || (prefix == hi_prefix && CompareBytes(v, *hi) > 0)) {
			hi = &v;
			hi_prefix = prefix;
		}
	}
	if (!lo) {
		return;
	}
	s.has_minmax = true;
	const size_t limit = truncate ? kMaxStatString : SIZE_MAX;
	s.minmax_exact = lo->len <= limit && hi->len <= limit;
	s.min.assign(lo->ptr, std::min<size_t>(lo->len, limit));
	s.max.assign(hi->ptr, std::min<size_t>(hi->len, limit));
}

//! Eight bytes a step (a byte a step took a tenth of a COPY of string-heavy tables).
inline uint64_t HashBytes(const char *p, size_t n) {
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t w;
		std::memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		uint64_t w = 0;
		std::memcpy(&w, p, n); // n > 0: p points at n bytes
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	return h ^ (h >> 29);
}

//! The distinct non-NULL values of a chunk, bytewise ascending, when there are at most
//! kMaxDistinctValues of them in at most kMaxDistinctBytes; false (early) otherwise. Runs of
//! equal values (clustered columns) cost one comparison a row.
bool DistinctValues(const ColumnInput &in, std::vector<std::string> &out) {
	constexpr size_t kSlots = 128; // open addressing, at most a quarter full
	std::vector<int> slot(kSlots, -1);
	std::vector<uint64_t> hashes;
	size_t bytes = 0;
	out.clear();
	int last = -1; //! the previous valid row's value, by index (`out` grows)
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		const char *p;
		size_t n;
		if (in.type.IsString()) {
			p = in.strings[i].ptr;
			n = in.strings[i].len;
		} else {
			p = reinterpret_cast<const char *>(in.fixed + i * in.type.ByteWidth());
			n = in.type.ByteWidth();
		}
		if (last >= 0 && out[last].size() == n && (n == 0 || std::memcmp(out[last].data(), p, n) == 0)) {
			continue;
		}
		const uint64_t h = HashBytes(p, n);
		size_t k = h & (kSlots - 1);
		for (; slot[k] >= 0; k = (k + 1) & (kSlots - 1)) {
			auto &v = out[slot[k]];
			if (hashes[slot[k]] == h && v.size() == n && (n == 0 || std::memcmp(v.data(), p, n) == 0)) {
				break;
			}
		}
		if (slot[k] < 0) {
			if (out.size() == kMaxDistinctValues || bytes + n > kMaxDistinctBytes) {
				return false;
			}
			slot[k] = static_cast<int>(out.size());
			out.emplace_back(p, n);
			hashes.push_back(h);
			bytes += n;
		}
		last = slot[k];
	}
	std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) { return CompareRawBytes(a, b) < 0; });
	return true;
}

} // namespace

ZoneStats ComputeStats(const ColumnInput &in, bool truncate_strings, bool distinct) {
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
		StringStats(in, s, truncate_strings);
		break;
	case PhysicalKind::OPAQUE:
		break;
	}
	if (distinct && DistinctType(in.type) && s.NonNull() > 0) {
		s.has_distinct = DistinctValues(in, s.distinct);
		if (!s.has_distinct) {
			s.distinct.clear();
		}
	}
	return s;
}

} // namespace vtx
