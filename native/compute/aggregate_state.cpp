#include "aggregate_state.hpp"

#include "../format/stats_builder.hpp"

#include <algorithm>
#include <cstring>
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

bool AggregateState::StatsSuffice(const ZoneStats &s, bool needs_minmax, bool needs_sum) {
	if (needs_sum && s.NonNull() > 0 && !s.has_int_sum && !s.has_float_sum) {
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
	if (s.has_float_sum) {
		finite_sum += s.finite_sum;
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

void AggregateState::AddDecoded(const DecodedColumn &chunk) {
	std::vector<uint8_t> valid;
	ColumnInput in;
	in.type = type;
	in.count = chunk.count;
	if (!chunk.all_valid) {
		valid.resize(chunk.count);
		for (uint64_t i = 0; i < chunk.count; i++) {
			valid[i] = chunk.IsValid(i);
		}
		in.valid = valid.data();
	}
	in.fixed = chunk.Fixed();
	StringRefs strings;
	in.strings = chunk.Strings(strings);
	AddStats(ComputeStats(in, false));
	if (type.Kind() == PhysicalKind::SIGNED && type.ByteWidth() == 16 && !chunk.all_null) {
		auto values = chunk.Fixed();
		for (uint64_t i = 0; i < chunk.count; i++) {
			if (chunk.all_valid || chunk.IsValid(i)) {
				int128 v;
				std::memcpy(&v, values + i * sizeof(int128), sizeof(int128));
				sum_overflow |= __builtin_add_overflow(int_sum, v, &int_sum);
			}
		}
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
