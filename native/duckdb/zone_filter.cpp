#include "zone_filter.hpp"

#include "type_mapping.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/operator/logical_get.hpp"

#include <cmath>

namespace vortex {

using namespace duckdb;

std::string ZonePredicate::ToString(const std::string &column) const {
	switch (op) {
	case ExpressionType::OPERATOR_IS_NULL: return column + " IS NULL";
	case ExpressionType::OPERATOR_IS_NOT_NULL: return column + " IS NOT NULL";
	default: return column + " " + ExpressionTypeToOperator(op) + " " + constant.ToSQLString();
	}
}

namespace {

//! The scan field a column reference points to, or false.
bool FieldOf(const LogicalGet &get, const Expression &expr, const ScanBindData &bind, idx_t &field) {
	if (expr.GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
		return false;
	}
	auto &ref = expr.Cast<BoundColumnRefExpression>();
	auto &ids = get.GetColumnIds();
	if (ref.binding.table_index != get.table_index || ref.binding.column_index >= ids.size()) {
		return false;
	}
	field = ids[ref.binding.column_index].GetPrimaryIndex();
	return field < bind.fields.size() && ref.return_type == bind.types[field];
}

bool Orderable(const LogicalType &type) {
	switch (type.id()) {
	case LogicalTypeId::INTERVAL:
	case LogicalTypeId::TIME_TZ:
	case LogicalTypeId::UUID:
		return false;
	default:
		return true;
	}
}

} // namespace

namespace {

//! `column op constant` (in either order) as a predicate, if it is one.
void CollectComparison(const LogicalGet &get, ExpressionType op, const Expression *col, const Expression *con,
                       ScanBindData &bind) {
	idx_t field;
	if (col->GetExpressionClass() == ExpressionClass::BOUND_CONSTANT) {
		std::swap(col, con);
		op = FlipComparisonExpression(op);
	}
	switch (op) {
	case ExpressionType::COMPARE_EQUAL:
	case ExpressionType::COMPARE_LESSTHAN:
	case ExpressionType::COMPARE_LESSTHANOREQUALTO:
	case ExpressionType::COMPARE_GREATERTHAN:
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
		break;
	default:
		return;
	}
	if (con->GetExpressionClass() != ExpressionClass::BOUND_CONSTANT || !FieldOf(get, *col, bind, field)) {
		return;
	}
	auto &value = con->Cast<BoundConstantExpression>().value;
	if (value.IsNull() || value.type() != bind.types[field] || !Orderable(value.type())) {
		return;
	}
	bind.predicates.push_back(ZonePredicate {field, op, value});
}

} // namespace

void CollectZonePredicates(const LogicalGet &get, const Expression &expr, ScanBindData &bind) {
	idx_t field;
	switch (expr.GetExpressionClass()) {
	case ExpressionClass::BOUND_COMPARISON: {
		auto &cmp = expr.Cast<BoundComparisonExpression>();
		CollectComparison(get, cmp.GetExpressionType(), cmp.left.get(), cmp.right.get(), bind);
		return;
	}
	case ExpressionClass::BOUND_BETWEEN: {
		auto &b = expr.Cast<BoundBetweenExpression>();
		CollectComparison(get, b.LowerComparisonType(), b.input.get(), b.lower.get(), bind);
		CollectComparison(get, b.UpperComparisonType(), b.input.get(), b.upper.get(), bind);
		return;
	}
	case ExpressionClass::BOUND_CONJUNCTION: {
		// Every conjunct of an AND must hold, so each one alone may rule a zone out.
		if (expr.GetExpressionType() == ExpressionType::CONJUNCTION_AND) {
			for (auto &child : expr.Cast<BoundConjunctionExpression>().children) {
				CollectZonePredicates(get, *child, bind);
			}
		}
		return;
	}
	case ExpressionClass::BOUND_OPERATOR: {
		auto &o = expr.Cast<BoundOperatorExpression>();
		auto type = o.GetExpressionType();
		if ((type == ExpressionType::OPERATOR_IS_NULL || type == ExpressionType::OPERATOR_IS_NOT_NULL) &&
		    o.children.size() == 1 && FieldOf(get, *o.children[0], bind, field)) {
			bind.predicates.push_back(ZonePredicate {field, type, Value()});
		}
		return;
	}
	default:
		return;
	}
}

bool ZoneExcluded(const ZonePredicate &p, const vtx::ZoneStats &s, const LogicalType &type) {
	if (p.op == ExpressionType::OPERATOR_IS_NULL) {
		return s.nulls == 0;
	}
	if (p.op == ExpressionType::OPERATOR_IS_NOT_NULL) {
		return s.nulls == s.rows;
	}
	// A comparison is never true for NULL.
	if (s.NonNull() == 0) {
		return true;
	}
	const bool is_float = type.id() == LogicalTypeId::FLOAT || type.id() == LogicalTypeId::DOUBLE;
	if (is_float) {
		double c = p.constant.GetValue<double>();
		if (std::isnan(c)) {
			return false;
		}
		// DuckDB orders NaN above every number: a zone with NaN can satisfy >, >=, and only
		// min/max of the non-NaN values are known.
		if (s.nans > 0 && p.op != ExpressionType::COMPARE_LESSTHAN && p.op != ExpressionType::COMPARE_LESSTHANOREQUALTO) {
			return false;
		}
		if (s.NonNull() == s.nans) {
			return p.op == ExpressionType::COMPARE_LESSTHAN || p.op == ExpressionType::COMPARE_LESSTHANOREQUALTO;
		}
	}
	if (!s.has_minmax || !s.minmax_exact) {
		return false;
	}
	auto lo = RawToValue(type, s.min);
	auto hi = RawToValue(type, s.max);
	auto &c = p.constant;
	switch (p.op) {
	case ExpressionType::COMPARE_EQUAL: return c < lo || c > hi;
	case ExpressionType::COMPARE_LESSTHAN: return lo >= c;
	case ExpressionType::COMPARE_LESSTHANOREQUALTO: return lo > c;
	case ExpressionType::COMPARE_GREATERTHAN: return hi <= c;
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO: return hi < c;
	default: return false;
	}
}

} // namespace vortex
