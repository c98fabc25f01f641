#include "value_evaluator.hpp"

namespace vortex {

using namespace duckdb;

bool NoAnswer(const std::exception &ex) {
	switch (ErrorData(ex).Type()) {
	case ExceptionType::INTERRUPT:
	case ExceptionType::INTERNAL:
	case ExceptionType::FATAL:
		return false;
	default:
		return true;
	}
}

ValueEvaluator::ValueEvaluator(ClientContext &context, const Expression &e, LogicalType input)
    : e(e), input_type(std::move(input)), executor(context, e) {
	row.Initialize(Allocator::Get(context), {input_type}, 1);
}

bool ValueEvaluator::At(const Value &input, Value &out) {
	try {
		row.data[0].Reference(input.IsNull() ? Value(input_type) : input);
		row.SetCardinality(1);
		Vector result(e.return_type, 1);
		executor.ExecuteExpression(row, result);
		out = result.GetValue(0);
		return true;
	} catch (std::exception &ex) {
		if (!NoAnswer(ex)) {
			throw;
		}
		out = Value(e.return_type);
		return false;
	}
}

} // namespace vortex
