#include "monotone_functions.hpp"

#include "../type_mapping.hpp"
#include "duckdb/function/function_binder.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"

namespace vortex {

using namespace duckdb;

namespace {

bool Constant(const Expression &e, LogicalTypeId type) {
	return e.GetExpressionClass() == ExpressionClass::BOUND_CONSTANT && e.return_type.id() == type &&
	       !e.Cast<BoundConstantExpression>().value.IsNull();
}

bool Temporal(const LogicalType &t) {
	switch (t.id()) {
	case LogicalTypeId::DATE:
	case LogicalTypeId::TIMESTAMP:
	case LogicalTypeId::TIMESTAMP_SEC:
	case LogicalTypeId::TIMESTAMP_MS:
	case LogicalTypeId::TIMESTAMP_NS:
		return true;
	default:
		return false;
	}
}


//! Local time in the session's TimeZone only runs forwards where it is UTC.
bool TimeZoneIsUtc(ClientContext &context) {
	Value v;
	if (!context.TryGetCurrentSetting("TimeZone", v) || v.IsNull()) {
		return false;
	}
	auto tz = StringUtil::Lower(v.ToString());
	return tz == "utc" || tz == "etc/utc" || tz == "gmt" || tz == "etc/gmt" || tz == "z";
}

//! Which child of a bucket function is its input, or -1 where `key` is no bucket function.
int InputPosition(ClientContext &context, const Expression &key, bool &monotone) {
	if (key.GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		auto &cast = key.Cast<BoundCastExpression>();
		auto &from = cast.child->return_type;
		auto &to = cast.return_type;
		monotone = true;
		if (to.id() == LogicalTypeId::DATE && (Temporal(from) || from.id() == LogicalTypeId::TIMESTAMP_TZ)) {
			monotone = from.id() != LogicalTypeId::TIMESTAMP_TZ || TimeZoneIsUtc(context);
			return 0;
		}
		if (to.id() == LogicalTypeId::TIMESTAMP && Temporal(from)) {
			return 0;
		}
		return IsPlainInteger(from) && IsPlainInteger(to) ? 0 : -1;
	}
	if (key.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return -1;
	}
	auto &fn = key.Cast<BoundFunctionExpression>();
	auto &name = fn.function.name;
	auto &c = fn.children;
	auto timed = [&](const Expression &input) {
		monotone = input.return_type.id() != LogicalTypeId::TIMESTAMP_TZ || TimeZoneIsUtc(context);
		return Temporal(input.return_type) || input.return_type.id() == LogicalTypeId::TIMESTAMP_TZ;
	};
	if ((name == "date_trunc" || name == "datetrunc") && c.size() == 2 && Constant(*c[0], LogicalTypeId::VARCHAR) &&
	    timed(*c[1])) {
		return 1;
	}
	if (name == "time_bucket" && (c.size() == 2 || c.size() == 3) && Constant(*c[0], LogicalTypeId::INTERVAL) &&
	    timed(*c[1])) {
		if (c.size() == 3) {
			if (c[2]->GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
				return -1;
			}
			// A time zone argument: monotone where it is UTC.
			if (c[2]->return_type.id() == LogicalTypeId::VARCHAR) {
				auto tz = StringUtil::Lower(c[2]->Cast<BoundConstantExpression>().value.ToString());
				monotone = monotone && (tz == "utc" || tz == "etc/utc" || tz == "gmt");
			}
		}
		return 1;
	}
	if (name == "year" && c.size() == 1 && timed(*c[0])) {
		return 0;
	}
	if (name == "//" && c.size() == 2 && IsPlainInteger(c[0]->return_type) && c[1]->GetExpressionClass() == ExpressionClass::BOUND_CONSTANT) {
		auto &v = c[1]->Cast<BoundConstantExpression>().value;
		monotone = true;
		return !v.IsNull() && IsPlainInteger(v.type()) && v.DefaultCastAs(LogicalType::HUGEINT).GetValue<hugeint_t>() > 0 ? 0 : -1;
	}
	return -1;
}

const Expression &Child(const Expression &key, int position) {
	if (key.GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		return *key.Cast<BoundCastExpression>().child;
	}
	return *key.Cast<BoundFunctionExpression>().children[position];
}

} // namespace

bool BucketFunction(ClientContext &context, const Expression &key, const Expression *&input, bool &monotone) {
	const int position = InputPosition(context, key, monotone);
	if (position < 0) {
		return false;
	}
	input = &Child(key, position);
	return true;
}

// Coarser than needed is still exact: decade, century and millennium are taken per year because
// date_trunc's centuries begin a year before century()'s.
const CalendarField *CalendarFieldOf(const Expression &e, const Expression *&input) {
	using K = vtx::compute::TimestampKey;
	static const CalendarField kFields[] = {
	    {"month", "month", "year", true, K::MONTH},
	    {"quarter", "quarter", "year", true, K::QUARTER},
	    {"day", "day", "month", true, K::DAY_OF_MONTH},
	    {"dayofmonth", "day", "month", true, K::DAY_OF_MONTH},
	    {"dayofyear", "day", "year", true, K::DAY_OF_YEAR},
	    {"isodow", "day", "week", true, K::ISO_DAY_OF_WEEK},
	    {"hour", "hour", "day", true, K::HOUR},
	    {"minute", "minute", "hour", true, K::MINUTE},
	    {"second", "second", "minute", true, K::SECOND},
	    {"millisecond", "millisecond", "minute", true, K::MILLISECOND},
	    {"monthname", "month", nullptr, false, K::MONTH},
	    {"dayofweek", "day", nullptr, true, K::DAY_OF_WEEK},
	    {"weekday", "day", nullptr, true, K::DAY_OF_WEEK},
	    {"dayname", "day", nullptr, false, K::DAY_OF_WEEK},
	    {"decade", "year", nullptr, false, K::YEAR},
	    {"century", "year", nullptr, false, K::YEAR},
	    {"millennium", "year", nullptr, false, K::YEAR},
	};
	if (e.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return nullptr;
	}
	auto &fn = e.Cast<BoundFunctionExpression>();
	if (fn.children.size() != 1) {
		return nullptr;
	}
	auto type = fn.children[0]->return_type.id();
	if (type != LogicalTypeId::DATE && type != LogicalTypeId::TIMESTAMP) {
		return nullptr;
	}
	for (auto &f : kFields) {
		if (fn.function.name == f.name) {
			input = fn.children[0].get();
			return &f;
		}
	}
	return nullptr;
}

bool DateTruncOf(const Expression &e, DatePartSpecifier &part, const Expression *&input) {
	if (e.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return false;
	}
	auto &fn = e.Cast<BoundFunctionExpression>();
	if ((fn.function.name != "date_trunc" && fn.function.name != "datetrunc") || fn.children.size() != 2 ||
	    !Constant(*fn.children[0], LogicalTypeId::VARCHAR)) {
		return false;
	}
	input = fn.children[1].get();
	return TryGetDatePartSpecifier(fn.children[0]->Cast<BoundConstantExpression>().value.ToString(), part);
}

unique_ptr<Expression> TruncationOf(ClientContext &context, const char *unit, unique_ptr<Expression> input) {
	vector<unique_ptr<Expression>> args;
	args.push_back(make_uniq<BoundConstantExpression>(Value(unit)));
	args.push_back(std::move(input));
	try {
		ErrorData error;
		return FunctionBinder(context).BindScalarFunction(DEFAULT_SCHEMA, "date_trunc", std::move(args), error);
	} catch (std::exception &) {
		return nullptr;
	}
}

} // namespace vortex
