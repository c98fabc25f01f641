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
	auto &fn = f.Cast<BoundFunctionExpression>();
	static const std::pair<const char *, TimestampKey> kFields[] = {
	    {"hour", TimestampKey::HOUR},           {"minute", TimestampKey::MINUTE},
	    {"second", TimestampKey::SECOND},       {"millisecond", TimestampKey::MILLISECOND},
	    {"dayofweek", TimestampKey::DAY_OF_WEEK}, {"weekday", TimestampKey::DAY_OF_WEEK},
	    {"isodow", TimestampKey::ISO_DAY_OF_WEEK}, {"year", TimestampKey::YEAR},
	    {"quarter", TimestampKey::QUARTER},        {"month", TimestampKey::MONTH},
	    {"day", TimestampKey::DAY_OF_MONTH},       {"dayofmonth", TimestampKey::DAY_OF_MONTH},
	    {"dayofyear", TimestampKey::DAY_OF_YEAR},
	};
	if (fn.children.size() != 1 || f.return_type.id() != LogicalTypeId::BIGINT) {
		return false;
	}
	of_dates = date_input(*fn.children[0]);
	if (!of_dates && !timestamp_input(*fn.children[0])) {
		return false;
	}
	for (auto &f : kFields) {
		if (fn.function.name == f.first) {
			key = f.second;
			return !of_dates || vtx::compute::DateField(key);
		}
	}
	return false;
}

} // namespace vortex
