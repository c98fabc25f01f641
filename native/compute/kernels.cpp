#include "kernels.hpp"

#include <cmath>
#include <limits>

namespace vtx {
namespace compute {

uint64_t CountValues(const AggregateState &s, KernelOptions o) {
	return s.non_null - (o.skip_nans ? s.nans : 0);
}

namespace {

//! NaN, or an infinity, when the non-finite values decide the sum; false when it is finite.
bool NonFiniteSum(const AggregateState &s, KernelOptions o, double &r) {
	if ((!o.skip_nans && s.nans > 0) || (s.pos_inf && s.neg_inf)) {
		r = std::numeric_limits<double>::quiet_NaN();
		return true;
	}
	if (s.pos_inf || s.neg_inf) {
		r = s.pos_inf ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
		return true;
	}
	return false;
}

} // namespace

double FloatSum(const AggregateState &s, KernelOptions o) {
	double r;
	return NonFiniteSum(s, o, r) ? r : s.float_sum.Sum().Round();
}

double FloatMean(const AggregateState &s, KernelOptions o) {
	const uint64_t count = CountValues(s, o);
	double r;
	if (count == 0) {
		return std::numeric_limits<double>::quiet_NaN(); // Vortex's mean of nothing
	}
	return NonFiniteSum(s, o, r) ? r : s.float_sum.Sum().RoundDivided(count);
}

namespace {

double IntToDouble(int128 v) {
	return static_cast<double>(v);
}

} // namespace

Scalar Evaluate(Kernel k, const AggregateState &s, KernelOptions o) {
	switch (k) {
	case Kernel::COUNT_ROWS:
		return Scalar::Int(s.rows);
	case Kernel::COUNT:
		return Scalar::Int(CountValues(s, o));
	case Kernel::SUM:
		if (s.type.IsFloat()) {
			return Scalar::Real(FloatSum(s, o));
		}
		return Scalar::Int(s.int_sum);
	case Kernel::MEAN: {
		if (s.type.IsFloat()) {
			return Scalar::Real(FloatMean(s, o));
		}
		double count = static_cast<double>(CountValues(s, o));
		return Scalar::Real(IntToDouble(s.int_sum) / count); // 0/0 is NaN: Vortex's mean of nothing
	}
	case Kernel::MIN:
	case Kernel::MAX:
		// Without skip_nans, NaN sorts above every number (as in DuckDB).
		if (!o.skip_nans && s.nans > 0 && (k == Kernel::MAX || !s.has_minmax)) {
			return Scalar::Real(std::numeric_limits<double>::quiet_NaN());
		}
		if (!s.has_minmax) {
			return Scalar::Null();
		}
		return Scalar::Bytes(k == Kernel::MIN ? s.min : s.max);
	}
	return Scalar::Null();
}

} // namespace compute
} // namespace vtx
