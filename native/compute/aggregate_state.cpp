#include "aggregate_state.hpp"
#include "selection.hpp"
#include "../format/stats/halves_sum.hpp"

#include "../format/scratch.hpp"
#include "../format/stats/stats_builder.hpp"
#include "../format/vector_loops.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace vtx {
namespace compute {

namespace {

template <class T>
int CompareAs(const std::string &a, const std::string &b) {
	T x, y;
	std::memcpy(&x, a.data(), sizeof(T));
	std::memcpy(&y, b.data(), sizeof(T));
	return x < y ? -1 : y < x ? 1 : 0;
}

} // namespace

int CompareValues(const ColumnType &type, const std::string &a, const std::string &b) {
	switch (type.Kind()) {
	case PhysicalKind::STRING: {
		auto n = std::min(a.size(), b.size());
		int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
		return c != 0 ? c : a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
	}
	case PhysicalKind::FLOAT:
		return type.ByteWidth() == 4 ? CompareAs<float>(a, b) : CompareAs<double>(a, b);
	case PhysicalKind::SIGNED:
		switch (type.ByteWidth()) {
		case 1: return CompareAs<int8_t>(a, b);
		case 2: return CompareAs<int16_t>(a, b);
		case 4: return CompareAs<int32_t>(a, b);
		case 8: return CompareAs<int64_t>(a, b);
		default: return CompareAs<int128>(a, b);
		}
	case PhysicalKind::UNSIGNED:
		switch (type.ByteWidth()) {
		case 1: return CompareAs<uint8_t>(a, b);
		case 2: return CompareAs<uint16_t>(a, b);
		case 4: return CompareAs<uint32_t>(a, b);
		case 8: return CompareAs<uint64_t>(a, b);
		default: return CompareAs<uint128>(a, b);
		}
	case PhysicalKind::OPAQUE:
		break;
	}
	return 0;
}

bool AggregateState::StatsSuffice(const ZoneStats &s, bool needs_minmax, bool needs_sum, bool needs_sketch,
                                  bool needs_distinct) {
	if (needs_sum && s.NonNull() > 0 && !s.has_int_sum && !s.has_exact_sum) {
		return false; // 128-bit integers keep no sum, and rounded float sums are not answers
	}
	if ((needs_sketch && s.NonNull() > 0 && !s.has_sketch) || (needs_distinct && s.NonNull() > 0 && !s.has_distinct)) {
		return false;
	}
	if (!needs_minmax || s.NonNull() == s.nans) {
		return true; // nothing but NULL/NaN: no min/max to find
	}
	return s.has_minmax && s.minmax_exact;
}

void AggregateState::AddStats(const ZoneStats &s) {
	rows += s.rows;
	non_null += s.NonNull();
	nans += s.nans;
	pos_inf += s.pos_inf;
	neg_inf += s.neg_inf;
	if (s.has_int_sum && __builtin_add_overflow(int_sum, s.int_sum, &int_sum)) {
		// Unreachable with real data (it takes more than 2^63 rows); DuckDB's own words for it.
		throw std::overflow_error("Overflow in HUGEINT addition");
	}
	if (s.has_exact_sum) {
		float_sum.Add(s.exact_sum);
	} else if (s.has_float_sum && needs_sum && s.NonNull() > s.nans + s.pos_inf + s.neg_inf) {
		float_sum_unknown = true;
	}
	if (needs_sketch && s.has_sketch) {
		for (size_t i = 0; i < sketch.size(); i++) {
			sketch[i] = std::max(sketch[i], s.sketch[i]);
		}
	}
	if (needs_distinct && s.has_distinct) {
		for (auto &v : s.distinct) {
			distinct.Insert(v);
		}
	}
	if (s.has_minmax && s.minmax_exact) {
		if (!has_minmax) {
			min = s.min;
			max = s.max;
			has_minmax = true;
		} else {
			if (CompareValues(type, s.min, min) < 0) {
				min = s.min;
			}
			if (CompareValues(type, s.max, max) > 0) {
				max = s.max;
			}
		}
	}
}

void AggregateState::Merge(AggregateState &&o) {
	// A union is symmetric: the larger set stays, the smaller is inserted into it.
	if (o.distinct.Size() > distinct.Size()) {
		std::swap(distinct, o.distinct);
	}
	Merge(static_cast<const AggregateState &>(o));
}

void AggregateState::Merge(const AggregateState &o) {
	sum_overflow |= o.sum_overflow;
	float_sum_unknown |= o.float_sum_unknown;
	float_sum.Add(o.float_sum);
	for (size_t i = 0; i < sketch.size(); i++) {
		sketch[i] = std::max(sketch[i], o.sketch[i]);
	}
	distinct.Merge(o.distinct);
	ZoneStats s; // the rest, as statistics of the other state's rows
	s.rows = o.rows;
	s.nulls = o.rows - o.non_null;
	s.nans = o.nans;
	s.pos_inf = o.pos_inf;
	s.neg_inf = o.neg_inf;
	s.has_int_sum = true;
	s.int_sum = o.int_sum;
	s.has_minmax = o.has_minmax;
	s.minmax_exact = true;
	s.min = o.min;
	s.max = o.max;
	AddStats(s);
}

namespace {

//! Copies the values of the rows in [begin, end) that are valid and selected to the front of
//! `out`, without branches (a row's slot is always written; the cursor advances only for kept
//! rows). `in` holds the values from row `begin` on; validity and `selected` are by chunk row.
template <class T>
uint64_t Compact(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end, const T *in, T *out) {
	uint64_t k = 0;
	for (uint64_t i = begin; i < end; i++) {
		out[k] = in[i - begin];
		k += (selected ? selected[i] : 1) & (chunk.all_valid ? 1 : (chunk.validity[i >> 6] >> (i & 63)) & 1);
	}
	return k;
}

struct Bytes16 {
	uint64_t lo, hi;
};

template <class T>
VTX_VECTOR_LOOP int128 DenseSum(const T *__restrict v, uint64_t n) {
	HalvesSum<T> sum;
	for (uint64_t i = 0; i < n; i++) {
		sum.Add(HalvesSum<T>::Bits(v[i]));
	}
	return sum.Total();
}

template <class T>
void DenseIntegers(const T *v, uint64_t n, bool minmax, bool sum, ZoneStats &s) {
	if (minmax && n) {
		T lo = v[0], hi = v[0];
		for (uint64_t i = 1; i < n; i++) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
		s.has_minmax = s.minmax_exact = true;
		s.min.assign(reinterpret_cast<const char *>(&lo), sizeof(T));
		s.max.assign(reinterpret_cast<const char *>(&hi), sizeof(T));
	}
	if (sum) {
		constexpr uint64_t kPart = uint64_t(1) << 32; // HalvesSum's exact range
		int128 total = 0;
		for (uint64_t at = 0; at < n; at += kPart) {
			total += DenseSum(v + at, std::min(kPart, n - at));
		}
		s.has_int_sum = true;
		s.int_sum = total;
	}
}

template <class T>
void DenseFloats(const T *v, uint64_t n, ZoneStats &s) {
	FloatAccumulator total;
	uint64_t nans = 0, pos = 0, neg = 0;
	for (uint64_t i = 0; i < n; i++) {
		const T x = v[i];
		const bool nan = x != x;
		const bool inf = !nan && (x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity());
		nans += nan;
		pos += inf && x > 0;
		neg += inf && x < 0;
		if (!nan && !inf) {
			total.Add(static_cast<double>(x));
		}
	}
	s.nans = nans;
	s.pos_inf = pos;
	s.neg_inf = neg;
	s.has_exact_sum = true;
	s.exact_sum = total.Sum();
}

//! Statistics of dense (all valid, all selected) values, computing only what is needed:
//! ComputeStats for what has no lean path.
ZoneStats DenseStats(const ColumnInput &in, bool minmax, bool sum) {
	ZoneStats s;
	s.rows = in.count;
	const auto w = in.type.ByteWidth();
	switch (in.type.Kind()) {
	case PhysicalKind::SIGNED:
	case PhysicalKind::UNSIGNED: {
		const bool sgn = in.type.Kind() == PhysicalKind::SIGNED;
		switch (w) {
		case 1: sgn ? DenseIntegers(reinterpret_cast<const int8_t *>(in.fixed), in.count, minmax, sum, s)
		            : DenseIntegers(reinterpret_cast<const uint8_t *>(in.fixed), in.count, minmax, sum, s); return s;
		case 2: sgn ? DenseIntegers(reinterpret_cast<const int16_t *>(in.fixed), in.count, minmax, sum, s)
		            : DenseIntegers(reinterpret_cast<const uint16_t *>(in.fixed), in.count, minmax, sum, s); return s;
		case 4: sgn ? DenseIntegers(reinterpret_cast<const int32_t *>(in.fixed), in.count, minmax, sum, s)
		            : DenseIntegers(reinterpret_cast<const uint32_t *>(in.fixed), in.count, minmax, sum, s); return s;
		case 8: sgn ? DenseIntegers(reinterpret_cast<const int64_t *>(in.fixed), in.count, minmax, sum, s)
		            : DenseIntegers(reinterpret_cast<const uint64_t *>(in.fixed), in.count, minmax, sum, s); return s;
		default: break;
		}
		break;
	}
	case PhysicalKind::FLOAT:
		if (minmax) {
			break; // min/max of floats is never pushed; keep the full path if ever asked
		}
		if (sum) {
			w == 4 ? DenseFloats(reinterpret_cast<const float *>(in.fixed), in.count, s)
			       : DenseFloats(reinterpret_cast<const double *>(in.fixed), in.count, s);
		} else {
			// count(x) only: NaN still counts as a value, but keep the NaN count exact.
			for (uint64_t i = 0; i < in.count; i++) {
				if (w == 4) {
					float x;
					std::memcpy(&x, in.fixed + i * 4, 4);
					s.nans += x != x;
				} else {
					double x;
					std::memcpy(&x, in.fixed + i * 8, 8);
					s.nans += x != x;
				}
			}
		}
		return s;
	default:
		break;
	}
	return ComputeStats(in, false);
}

} // namespace

void AggregateState::AddDecoded(const DecodedColumn &chunk, const uint8_t *selected) {
	AddRows(chunk, selected, 0, chunk.count);
}

void AggregateState::AddDecodedRange(const DecodedColumn &chunk, uint64_t begin, uint64_t end) {
	AddRows(chunk, nullptr, begin, std::min(end, chunk.count));
}

void AggregateState::AddRows(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end) {
	const uint64_t n = end > begin ? end - begin : 0;
	if (needs_distinct) {
		distinct.InsertDecoded(chunk, selected, begin, end);
	}
	if (needs_sketch && !chunk.all_null) {
		if (!sketch_rows) {
			throw std::logic_error("a sketch is needed of decoded rows, and nothing hashes them");
		}
		sketch_rows(chunk, selected, begin, end, sketch);
	}
	if (chunk.all_null) {
		// Nothing but NULL: there is no payload to read.
		ZoneStats s;
		s.rows = s.nulls = n;
		AddStats(s);
		return;
	}
	if (!needs_minmax && !needs_sum && !type.IsFloat()) {
		// Counts only (count(x), count(DISTINCT x)): no value is looked at, and a dictionary's
		// strings are not spelled out per row.
		ZoneStats s;
		if (!selected && chunk.all_valid) {
			s.rows = n;
		} else {
			// Sums, not a branch per row: the rows a filter keeps fall where the data puts them.
			uint64_t rows = 0, valid = 0;
			for (uint64_t i = begin; i < end; i++) {
				const uint64_t take = selected ? selected[i] != 0 : 1;
				rows += take;
				valid += take & static_cast<uint64_t>(chunk.IsValid(i));
			}
			s.rows = rows;
			s.nulls = rows - valid;
		}
		AddStats(s);
		return;
	}
	if (n > 0 && (begin < chunk.decoded_begin || end > chunk.decoded_end)) {
		throw std::logic_error("aggregating rows the reader did not decode");
	}
	if (type.IsString() && !chunk.codes.empty()) {
		AddDictionaryRows(chunk, selected, begin, end);
		return;
	}
	ColumnInput in;
	in.type = type;
	in.count = n;
	// Per-thread buffers, released when no query needs them (format/scratch.hpp).
	ScratchLease lease;
	thread_local ScratchSlot<StringRefs> materialised_slot; // dictionary-coded strings, row by row
	auto &materialised = materialised_slot.value;
	const auto width = type.ByteWidth();
	// The rows before `begin` are never looked at: pointers start at the range.
	const uint8_t *fixed_in = type.IsString() ? nullptr : chunk.Fixed() + begin * width;
	const StringRef *strings_in = type.IsString() ? chunk.Strings(materialised, begin, end) : nullptr;
	in.fixed = fixed_in;
	in.strings = strings_in;
	if (chunk.all_valid && !selected) {
		// Dense already: statistics straight over the values where they lie.
		auto s = DenseStats(in, needs_minmax, needs_sum);
		AddStats(s);
		AddWideSum(in);
		return;
	}
	// Rows left out (NULL, or not selected) are dropped, and the statistics of what is left
	// are computed over dense values: no per-row branch on validity. Validity and `selected`
	// are indexed by chunk row; the values from `begin` on.
	thread_local ScratchSlot<ByteBuffer> fixed_slot;
	thread_local ScratchSlot<StringRefs> strings_slot;
	auto &fixed = fixed_slot.value;
	auto &strings = strings_slot.value;
	uint64_t kept = 0;
	if (width == 0) {
		strings.resize(n);
		kept = Compact<StringRef>(chunk, selected, begin, end, strings_in, strings.data());
		in.strings = strings.data();
	} else {
		fixed.resize(n * width);
		switch (width) {
		case 1: kept = Compact(chunk, selected, begin, end, fixed_in, fixed.data()); break;
		case 2:
			kept = Compact(chunk, selected, begin, end, reinterpret_cast<const uint16_t *>(fixed_in),
			               reinterpret_cast<uint16_t *>(fixed.data()));
			break;
		case 4:
			kept = Compact(chunk, selected, begin, end, reinterpret_cast<const uint32_t *>(fixed_in),
			               reinterpret_cast<uint32_t *>(fixed.data()));
			break;
		case 8:
			kept = Compact(chunk, selected, begin, end, reinterpret_cast<const uint64_t *>(fixed_in),
			               reinterpret_cast<uint64_t *>(fixed.data()));
			break;
		default:
			kept = Compact(chunk, selected, begin, end, reinterpret_cast<const Bytes16 *>(fixed_in),
			               reinterpret_cast<Bytes16 *>(fixed.data()));
			break;
		}
		in.fixed = fixed.data();
	}
	in.count = kept;
	auto s = DenseStats(in, needs_minmax, needs_sum);
	s.rows = n;
	s.nulls = n - kept;
	AddStats(s);
	AddWideSum(in);
}

//! A dictionary chunk's strings are compared once per entry that a kept row uses, not once per
//! row: a zone of 100,000 rows over 39 strings took a string comparison or two per row, twice
//! DuckDB's own max() of the same rows (bench/sweep.mjs seed 15).
void AggregateState::AddDictionaryRows(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin,
                                       uint64_t end) {
	ScratchLease lease;
	thread_local ScratchSlot<std::vector<uint8_t>> used_slot;
	thread_local ScratchSlot<StringRefs> entries_slot;
	auto &used = used_slot.value;
	auto &entries = entries_slot.value;
	const uint64_t kept = UsedEntries(chunk, selected, begin, end, used);
	entries.clear();
	for (size_t e = 0; e < used.size(); e++) {
		if (used[e]) {
			entries.push_back(chunk.dictionary[e]);
		}
	}
	ColumnInput in;
	in.type = type;
	in.count = entries.size();
	in.strings = entries.data();
	auto s = DenseStats(in, needs_minmax, needs_sum);
	s.rows = end > begin ? end - begin : 0;
	s.nulls = s.rows - kept;
	AddStats(s);
}

void AggregateState::AddWideSum(const ColumnInput &dense) {
	// 128-bit integers keep no sum in zone statistics: summed here, every addition checked.
	if (!needs_sum || type.Kind() != PhysicalKind::SIGNED || type.ByteWidth() != 16) {
		return;
	}
	for (uint64_t i = 0; i < dense.count; i++) {
		int128 v;
		std::memcpy(&v, dense.fixed + i * sizeof(int128), sizeof(int128));
		sum_overflow |= __builtin_add_overflow(int_sum, v, &int_sum);
	}
}

bool SumBounded(const ColumnType &type, const std::vector<const ZoneStats *> &zones, uint128 limit) {
	if (type.Kind() != PhysicalKind::SIGNED) {
		return false;
	}
	uint128 largest = 0, count = 0;
	for (auto *s : zones) {
		if (s->NonNull() == 0) {
			continue;
		}
		if (!s->has_minmax || !s->minmax_exact) {
			return false;
		}
		for (auto *raw : {&s->min, &s->max}) {
			int128 v = 0;
			if (raw->size() != type.ByteWidth() || raw->size() > sizeof(v)) {
				return false;
			}
			std::memcpy(&v, raw->data(), raw->size());
			if (raw->size() < sizeof(v) && (v >> (raw->size() * 8 - 1)) & 1) {
				v -= static_cast<int128>(1) << (raw->size() * 8); // sign-extend
			}
			// |v| as unsigned: exact even for the most negative value.
			uint128 magnitude = v < 0 ? static_cast<uint128>(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
			largest = std::max(largest, magnitude);
		}
		count += s->NonNull();
	}
	uint128 bound;
	return !__builtin_mul_overflow(largest, count, &bound) && bound <= limit;
}

} // namespace compute
} // namespace vtx
