#include "duckdb_semantics.hpp"

#include "../type_mapping.hpp"

namespace vortex {

using namespace duckdb;

long double HugeintToLongDouble(vtx::int128 v) {
	auto h = ToHugeint(v);
	// DuckDB special-cases upper == -1 to keep small negative numbers exact.
	if (h.upper == -1) {
		return -static_cast<long double>(NumericLimits<uint64_t>::Maximum() - h.lower) - 1;
	}
	return static_cast<long double>(h.lower) +
	       static_cast<long double>(h.upper) * (static_cast<long double>(NumericLimits<uint64_t>::Maximum()) + 1);
}

double DuckDBIntegerAverage(vtx::int128 sum, uint64_t count, const LogicalType &bound_type) {
	const bool decimal = bound_type.id() == LogicalTypeId::DECIMAL;
	const double scale =
	    decimal ? Hugeint::Cast<double>(Hugeint::POWERS_OF_TEN[DecimalType::GetScale(bound_type)]) : 0;
	switch (bound_type.InternalType()) {
	case PhysicalType::INT16: {
		// int64 state, finalized in double.
		double divident = static_cast<double>(count);
		if (decimal) {
			divident *= scale;
		}
		return static_cast<double>(static_cast<int64_t>(sum)) / divident;
	}
	default: {
		// hugeint state, finalized in long double.
		long double divident = static_cast<long double>(count);
		if (decimal) {
			divident *= scale;
		}
		return static_cast<double>(HugeintToLongDouble(sum) / divident);
	}
	}
}

bool SupportsIntegerSumResult(const LogicalType &t) {
	switch (t.id()) {
	case LogicalTypeId::HUGEINT:
	case LogicalTypeId::BIGINT:
		return true;
	case LogicalTypeId::DECIMAL:
		return true;
	default:
		return false;
	}
}

Value IntegerSumValue(vtx::int128 sum, const LogicalType &t) {
	switch (t.id()) {
	case LogicalTypeId::HUGEINT:
		return Value::HUGEINT(ToHugeint(sum));
	case LogicalTypeId::BIGINT:
		if (sum < NumericLimits<int64_t>::Minimum() || sum > NumericLimits<int64_t>::Maximum()) {
			throw OutOfRangeException("Overflow in sum");
		}
		return Value::BIGINT(static_cast<int64_t>(sum));
	case LogicalTypeId::DECIMAL: {
		auto w = DecimalType::GetWidth(t), s = DecimalType::GetScale(t);
		switch (t.InternalType()) {
		case PhysicalType::INT128:
			return Value::DECIMAL(ToHugeint(sum), w, s);
		case PhysicalType::INT64:
			if (sum < NumericLimits<int64_t>::Minimum() || sum > NumericLimits<int64_t>::Maximum()) {
				throw OutOfRangeException("Overflow in sum");
			}
			return Value::DECIMAL(static_cast<int64_t>(sum), w, s);
		default:
			break;
		}
		break;
	}
	default:
		break;
	}
	throw InternalException("vortex: unsupported sum result type %s", t.ToString());
}

} // namespace vortex
