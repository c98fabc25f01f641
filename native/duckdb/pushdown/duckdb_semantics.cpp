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

void StoreIntegerSum(Vector &out, idx_t row, vtx::int128 sum) {
	auto &t = out.GetType();
	const bool wide = t.InternalType() == PhysicalType::INT128;
	if (t.id() == LogicalTypeId::HUGEINT || (t.id() == LogicalTypeId::DECIMAL && wide)) {
		FlatVector::GetData<hugeint_t>(out)[row] = ToHugeint(sum);
		return;
	}
	if (t.id() == LogicalTypeId::BIGINT ||
	    (t.id() == LogicalTypeId::DECIMAL && t.InternalType() == PhysicalType::INT64)) {
		if (sum < NumericLimits<int64_t>::Minimum() || sum > NumericLimits<int64_t>::Maximum()) {
			throw OutOfRangeException("Overflow in sum");
		}
		FlatVector::GetData<int64_t>(out)[row] = static_cast<int64_t>(sum);
		return;
	}
	throw InternalException("vortex: unsupported sum result type %s", t.ToString());
}

void StoreInteger(Vector &out, idx_t row, vtx::int128 v) {
	switch (out.GetType().InternalType()) {
	case PhysicalType::INT8: FlatVector::GetData<int8_t>(out)[row] = static_cast<int8_t>(v); break;
	case PhysicalType::INT16: FlatVector::GetData<int16_t>(out)[row] = static_cast<int16_t>(v); break;
	case PhysicalType::INT32: FlatVector::GetData<int32_t>(out)[row] = static_cast<int32_t>(v); break;
	case PhysicalType::INT64: FlatVector::GetData<int64_t>(out)[row] = static_cast<int64_t>(v); break;
	case PhysicalType::UINT8: FlatVector::GetData<uint8_t>(out)[row] = static_cast<uint8_t>(v); break;
	case PhysicalType::UINT16: FlatVector::GetData<uint16_t>(out)[row] = static_cast<uint16_t>(v); break;
	case PhysicalType::UINT32: FlatVector::GetData<uint32_t>(out)[row] = static_cast<uint32_t>(v); break;
	case PhysicalType::UINT64: FlatVector::GetData<uint64_t>(out)[row] = static_cast<uint64_t>(v); break;
	case PhysicalType::INT128: FlatVector::GetData<hugeint_t>(out)[row] = ToHugeint(v); break;
	default: throw InternalException("vortex: an integer into a %s vector", out.GetType().ToString());
	}
}

void StoreDouble(Vector &out, idx_t row, double v) {
	if (out.GetType().InternalType() != PhysicalType::DOUBLE) {
		throw InternalException("vortex: a double into a %s vector", out.GetType().ToString());
	}
	FlatVector::GetData<double>(out)[row] = v;
}

} // namespace vortex
