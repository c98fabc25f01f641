#include "exact_float_sum_function.hpp"

#include "../../compute/compact_float_sum.hpp"
#include "duckdb/function/aggregate_function.hpp"

#include <cmath>
#include <limits>

namespace vortex {

using namespace duckdb;
using vtx::compute::CompactFloatSum;

namespace {

template <bool KAHAN, bool MEAN>
struct ExactFloatOperation {
	template <class STATE>
	static void Initialize(STATE &state) {
		state.Initialize();
	}
	template <class INPUT_TYPE, class STATE, class OP>
	static void Operation(STATE &state, const INPUT_TYPE &input, AggregateUnaryInput &) {
		state.Add(static_cast<double>(input));
	}
	template <class INPUT_TYPE, class STATE, class OP>
	static void ConstantOperation(STATE &state, const INPUT_TYPE &input, AggregateUnaryInput &, idx_t count) {
		state.AddTimes(static_cast<double>(input), count);
	}
	template <class STATE, class OP>
	static void Combine(const STATE &source, STATE &target, AggregateInputData &) {
		target.Combine(source);
	}
	template <class T, class STATE>
	static void Finalize(STATE &state, T &target, AggregateFinalizeData &finalize_data) {
		if (state.values == 0) {
			finalize_data.ReturnNull();
			return;
		}
		const double nan = std::numeric_limits<double>::quiet_NaN();
		if (state.HasNaN() || (state.HasPosInf() && state.HasNegInf())) {
			target = nan;
			return;
		}
		if (state.HasPosInf() || state.HasNegInf()) {
			// DuckDB's Kahan summation: an infinity makes its error term NaN.
			target = KAHAN ? nan : state.HasPosInf() ? std::numeric_limits<double>::infinity()
			                                          : -std::numeric_limits<double>::infinity();
			return;
		}
		const double sum = state.Sum();
		if (KAHAN && std::isinf(sum)) {
			target = nan; // a sum beyond the doubles: DuckDB's Kahan error term turns NaN
			return;
		}
		target = MEAN ? state.Mean() : sum;
	}
	static bool IgnoreNull() {
		return true;
	}
	template <class STATE>
	static void Destroy(STATE &state, AggregateInputData &) {
		state.Destroy();
	}
};

//! Ungrouped: a vector's values added at once (CompactFloatSum::AddBatch), not one by one.
void SimpleUpdate(Vector inputs[], AggregateInputData &, idx_t, data_ptr_t state_p, idx_t count) {
	auto &state = *reinterpret_cast<CompactFloatSum *>(state_p);
	UnifiedVectorFormat format;
	inputs[0].ToUnifiedFormat(count, format);
	auto data = UnifiedVectorFormat::GetData<double>(format);
	if (inputs[0].GetVectorType() == VectorType::CONSTANT_VECTOR) {
		if (format.validity.RowIsValid(0)) {
			state.AddTimes(data[0], count);
		}
		return;
	}
	if (!format.sel->IsSet() && format.validity.AllValid()) {
		state.AddBatch(data, count);
		return;
	}
	double dense[STANDARD_VECTOR_SIZE];
	idx_t n = 0;
	for (idx_t i = 0; i < count; i++) {
		const auto k = format.sel->get_index(i);
		if (format.validity.RowIsValid(k)) {
			dense[n++] = data[k];
		}
		if (n == STANDARD_VECTOR_SIZE) {
			state.AddBatch(dense, n);
			n = 0;
		}
	}
	state.AddBatch(dense, n);
}

template <bool KAHAN, bool MEAN>
AggregateFunction Make(const char *name) {
	auto f = AggregateFunction::UnaryAggregateDestructor<CompactFloatSum, double, double, ExactFloatOperation<KAHAN, MEAN>>(
	    LogicalType::DOUBLE, LogicalType::DOUBLE);
	f.simple_update = SimpleUpdate;
	f.name = name;
	// The same answer in any order of rows and merges: DuckDB may reorder its input freely.
	f.order_dependent = AggregateOrderDependent::NOT_ORDER_DEPENDENT;
	return f;
}

} // namespace

AggregateFunction GetExactFloatFunction(ExactFloatKind kind) {
	switch (kind) {
	case ExactFloatKind::SUM:
		return Make<false, false>("vortex_exact_sum");
	case ExactFloatKind::FSUM:
		return Make<true, false>("vortex_exact_fsum");
	case ExactFloatKind::AVG:
		return Make<false, true>("vortex_exact_avg");
	case ExactFloatKind::FAVG:
		return Make<true, true>("vortex_exact_favg");
	}
	throw InternalException("vortex: unknown exact float aggregate");
}

std::vector<AggregateFunction> GetExactFloatFunctions() {
	return {GetExactFloatFunction(ExactFloatKind::SUM), GetExactFloatFunction(ExactFloatKind::FSUM),
	        GetExactFloatFunction(ExactFloatKind::AVG), GetExactFloatFunction(ExactFloatKind::FAVG)};
}

bool ExactFloatKindOf(const std::string &name, ExactFloatKind &kind) {
	if (name == "sum" || name == "sum_no_overflow") {
		kind = ExactFloatKind::SUM;
	} else if (name == "fsum" || name == "kahan_sum" || name == "sumkahan") {
		kind = ExactFloatKind::FSUM;
	} else if (name == "avg") {
		kind = ExactFloatKind::AVG;
	} else if (name == "favg") {
		kind = ExactFloatKind::FAVG;
	} else {
		return false;
	}
	return true;
}

} // namespace vortex
