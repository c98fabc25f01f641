#include "calendar_kernels.hpp"

#include "monotone_functions.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"

namespace vortex {

using namespace duckdb;

bool CalendarKernelOf(const Expression &f, vtx::compute::TimestampKey &key, bool &of_dates) {
	using vtx::compute::TimestampKey;
	of_dates = false;
	auto timestamp_input = [](const Expression &e) {
		return e.GetExpressionClass() == ExpressionClass::BOUND_REF && e.return_type.id() == LogicalTypeId::TIMESTAMP;
	};
	auto date_input = [](const Expression &e) {
		return e.GetExpressionClass() == ExpressionClass::BOUND_REF && e.return_type.id() == LogicalTypeId::DATE;
	};
	if (f.GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		key = TimestampKey::DAY;
		return f.return_type.id() == LogicalTypeId::DATE && timestamp_input(*f.Cast<BoundCastExpression>().child);
	}
	if (f.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return false;
	}
	DatePartSpecifier spec;
	const Expression *input = nullptr;
	if (DateTruncOf(f, spec, input)) {
		if (!timestamp_input(*input)) {
			return false;
		}
		switch (spec) {
		case DatePartSpecifier::SECOND: key = TimestampKey::TRUNC_SECOND; break;
		case DatePartSpecifier::MINUTE: key = TimestampKey::TRUNC_MINUTE; break;
		case DatePartSpecifier::HOUR: key = TimestampKey::TRUNC_HOUR; break;
		// DuckDB 1.4 types a day of a TIMESTAMP a DATE; 1.5 a TIMESTAMP.
		case DatePartSpecifier::DAY:
			key = f.return_type.id() == LogicalTypeId::DATE ? TimestampKey::DAY : TimestampKey::TRUNC_DAY;
			return true;
		default: return false;
		}
		return f.return_type.id() == LogicalTypeId::TIMESTAMP;
	}
	// year is monotone, not a calendar field (monotone_functions.hpp); the others are.
	auto &fn = f.Cast<BoundFunctionExpression>();
	const CalendarField *field = nullptr;
	if (fn.function.name == "year" && fn.children.size() == 1) {
		input = fn.children[0].get();
		key = TimestampKey::YEAR;
	} else if ((field = CalendarFieldOf(f, input)) && field->computed) {
		key = field->key;
	} else {
		return false;
	}
	of_dates = date_input(*input);
	return f.return_type.id() == LogicalTypeId::BIGINT && (of_dates ? vtx::compute::DateField(key) : timestamp_input(*input));
}

} // namespace vortex
