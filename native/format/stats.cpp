#include "stats.hpp"

namespace vtx {

namespace {
enum : uint8_t { HAS_MINMAX = 1, MINMAX_EXACT = 2, HAS_INT_SUM = 4, HAS_FLOAT_SUM = 8 };
}

void ZoneStats::Serialize(ByteWriter &w) const {
	w.Var(rows);
	w.Var(nulls);
	w.Var(nans);
	w.Var(pos_inf);
	w.Var(neg_inf);
	uint8_t flags = (has_minmax ? HAS_MINMAX : 0) | (minmax_exact ? MINMAX_EXACT : 0) |
	                (has_int_sum ? HAS_INT_SUM : 0) | (has_float_sum ? HAS_FLOAT_SUM : 0);
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
}

ZoneStats ZoneStats::Deserialize(ByteReader &r, const ColumnType &type) {
	ZoneStats s;
	s.rows = r.Var();
	s.nulls = r.Var();
	s.nans = r.Var();
	s.pos_inf = r.Var();
	s.neg_inf = r.Var();
	if (s.nulls > s.rows || s.nans > s.rows - s.nulls || s.pos_inf > s.rows - s.nulls - s.nans ||
	    s.neg_inf > s.rows - s.nulls - s.nans - s.pos_inf) {
		throw FormatError("zone statistics have inconsistent counts");
	}
	if (!type.IsFloat() && (s.nans || s.pos_inf || s.neg_inf)) {
		throw FormatError("zone statistics count NaN or infinity for a non-float column");
	}
	auto flags = r.U8();
	if (flags & ~uint8_t(HAS_MINMAX | MINMAX_EXACT | HAS_INT_SUM | HAS_FLOAT_SUM)) {
		throw FormatError("zone statistics have unknown flags");
	}
	s.has_minmax = flags & HAS_MINMAX;
	s.minmax_exact = flags & MINMAX_EXACT;
	s.has_int_sum = flags & HAS_INT_SUM;
	s.has_float_sum = flags & HAS_FLOAT_SUM;
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
	return s;
}

} // namespace vtx
