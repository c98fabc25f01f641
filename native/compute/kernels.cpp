#include "kernels.hpp"

#include <cmath>
#include <limits>

namespace vtx {
namespace compute {

uint64_t CountValues(const AggregateState &s, KernelOptions o) {
	return s.non_null - (o.skip_nans ? s.nans : 0);
}

double FloatSum(const AggregateState &s, KernelOptions o) {
	if (!o.skip_nans && s.nans > 0) {
		return std::numeric_limits<double>::quiet_NaN();
	}
	double r = s.finite_sum;
	if (s.pos_inf) {
		r += std::numeric_limits<double>::infinity();
	}
	if (s.neg_inf) {
		r += -std::numeric_limits<double>::infinity();
	}
	return r;
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
		double count = static_cast<double>(CountValues(s, o));
		double sum = s.type.IsFloat() ? FloatSum(s, o) : IntToDouble(s.int_sum);
		return Scalar::Real(sum / count); // 0/0 is NaN: Vortex's mean of nothing
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
