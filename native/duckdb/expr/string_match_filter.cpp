#include "string_match_filter.hpp"

#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"

namespace vortex {

using namespace duckdb;
using vtx::compute::LikePattern;

namespace {

//! The pattern of `name(input 0, 'constant')`, and whether the function is a negation (`!~~`).
bool PatternOf(const BoundFunctionExpression &f, LikePattern &out, bool &negated) {
	if (f.children.size() != 2 || f.return_type.id() != LogicalTypeId::BOOLEAN) {
		return false;
	}
	auto &input = *f.children[0];
	auto &constant = *f.children[1];
	if (input.GetExpressionClass() != ExpressionClass::BOUND_REF || input.Cast<BoundReferenceExpression>().index != 0 ||
	    input.return_type.id() != LogicalTypeId::VARCHAR || constant.GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
		return false;
	}
	auto &value = constant.Cast<BoundConstantExpression>().value;
	if (value.IsNull() || value.type().id() != LogicalTypeId::VARCHAR) {
		return false;
	}
	const std::string text = StringValue::Get(value);
	const std::string &name = f.function.name;
	negated = false;
	if (name == "contains") {
		out = LikePattern::Literal(text, false, false);
	} else if (name == "prefix" || name == "starts_with" || name == "^@") {
		out = LikePattern::Literal(text, true, false);
	} else if (name == "suffix" || name == "ends_with") {
		out = LikePattern::Literal(text, false, true);
	} else if (name == "~~" || name == "!~~") {
		negated = name == "!~~";
		return LikePattern::Parse(text, out);
	} else {
		return false;
	}
	return true;
}

} // namespace

std::unique_ptr<StringMatchFilter> StringMatchFilter::Plan(const Expression &filter) {
	const Expression *e = &filter;
	bool negate = false;
	if (e->GetExpressionType() == ExpressionType::OPERATOR_NOT) {
		auto &op = e->Cast<BoundOperatorExpression>();
		if (op.children.size() != 1) {
			return nullptr;
		}
		negate = true;
		e = op.children[0].get();
	}
	if (e->GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return nullptr;
	}
	LikePattern pattern;
	bool negated;
	if (!PatternOf(e->Cast<BoundFunctionExpression>(), pattern, negated)) {
		return nullptr;
	}
	return std::unique_ptr<StringMatchFilter>(new StringMatchFilter(std::move(pattern), negate != negated));
}

bool StringMatchFilter::Applies(const vtx::DecodedColumn &column, uint64_t rows) {
	return column.count == rows && column.codes.empty() && column.deferred.encoding == 0 &&
	       (column.all_null || column.strings.size() == rows);
}

uint64_t StringMatchFilter::Evaluate(const vtx::DecodedColumn &column, uint64_t rows, const uint8_t *kept,
                                     uint8_t *out) const {
	return vtx::compute::MatchStrings(pattern, negate, column, rows, kept, out);
}

} // namespace vortex
