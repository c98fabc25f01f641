// Vortex's aggregate semantics over an accumulated state: sum of nothing is 0, mean of
// nothing is NaN, and `skip_nans` leaves NaN out of count/sum/mean/min/max. These are the
// "Vortex" column of the coherence tables; DuckDB's semantics are applied one layer up.
#pragma once
#include "aggregate_state.hpp"

namespace vtx {
namespace compute {

enum class Kernel : uint8_t { COUNT_ROWS, COUNT, SUM, MEAN, MIN, MAX };

struct KernelOptions {
	bool skip_nans = true;
};

struct Scalar {
	enum class Kind : uint8_t { NULL_VALUE, INTEGER, FLOAT, BYTES } kind = Kind::NULL_VALUE;
	int128 integer = 0;
	double real = 0;
	std::string bytes; //! raw value bytes (min/max)

	static Scalar Null() {
		return Scalar();
	}
	static Scalar Int(int128 v) {
		Scalar s;
		s.kind = Kind::INTEGER;
		s.integer = v;
		return s;
	}
	static Scalar Real(double v) {
		Scalar s;
		s.kind = Kind::FLOAT;
		s.real = v;
		return s;
	}
	static Scalar Bytes(std::string v) {
		Scalar s;
		s.kind = Kind::BYTES;
		s.bytes = std::move(v);
		return s;
	}
};

//! Non-null values counted by `count(x)`, with NaN left out when skipping NaN.
uint64_t CountValues(const AggregateState &s, KernelOptions o);
//! The float sum: NaN if any NaN counts or both infinities occur, else the infinity that
//! occurs, else the exact sum of the finite values rounded once to the nearest double.
double FloatSum(const AggregateState &s, KernelOptions o);
//! The float mean: as FloatSum where NaN or infinities decide it, else the exact sum divided
//! by the count, rounded once. NaN over no values.
double FloatMean(const AggregateState &s, KernelOptions o);

//! Evaluates a kernel with Vortex semantics.
Scalar Evaluate(Kernel k, const AggregateState &s, KernelOptions o);

} // namespace compute
} // namespace vtx
