#include "exact_float_sums.hpp"

#include "../functions/exact_float_sum_function.hpp"
#include "../scan/vortex_scan.hpp"
#include "../settings.hpp"
#include "duckdb/planner/expression/bound_aggregate_expression.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_window_expression.hpp"
#include "duckdb/planner/operator/logical_aggregate.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/operator/logical_projection.hpp"
#include "duckdb/planner/operator/logical_window.hpp"

#include <set>
#include <utility>

namespace vortex {

using namespace duckdb;

namespace {

//! (table index, column index) of the bindings that carry a float column of a vortex_scan.
using FloatColumns = std::set<std::pair<idx_t, idx_t>>;

bool IsFloatType(const LogicalType &t) {
	return t.id() == LogicalTypeId::FLOAT || t.id() == LogicalTypeId::DOUBLE;
}

//! The expression is such a column, or its cast from FLOAT to DOUBLE (exact).
bool CarriesFloatColumn(const Expression &e, const FloatColumns &columns) {
	const Expression *x = &e;
	if (x->GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		auto &cast = x->Cast<BoundCastExpression>();
		if (!IsFloatType(cast.child->return_type) || cast.return_type.id() != LogicalTypeId::DOUBLE) {
			return false;
		}
		x = cast.child.get();
	}
	if (x->GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
		return false;
	}
	auto &ref = x->Cast<BoundColumnRefExpression>();
	return columns.count({ref.binding.table_index, ref.binding.column_index}) > 0;
}

//! The exact stand-in for `function` over `children`, or false.
bool ExactStandIn(const AggregateFunction &function, const vector<unique_ptr<Expression>> &children,
                  const LogicalType &result, const FloatColumns &columns, ExactFloatKind &kind) {
	return ExactFloatKindOf(function.name, kind) && function.arguments.size() == 1 &&
	       function.arguments[0].id() == LogicalTypeId::DOUBLE && result.id() == LogicalTypeId::DOUBLE &&
	       children.size() == 1 && CarriesFloatColumn(*children[0], columns);
}

void FollowFloats(LogicalOperator &op, FloatColumns &columns) {
	for (auto &child : op.children) {
		FollowFloats(*child, columns);
	}
	switch (op.type) {
	case LogicalOperatorType::LOGICAL_GET: {
		auto &get = op.Cast<LogicalGet>();
		if (!IsVortexScan(get.function)) {
			break;
		}
		auto &ids = get.GetColumnIds();
		for (idx_t i = 0; i < ids.size(); i++) {
			if (ids[i].IsVirtualColumn() || ids[i].HasChildren()) {
				continue;
			}
			const auto primary = ids[i].GetPrimaryIndex();
			if (primary < get.returned_types.size() && IsFloatType(get.returned_types[primary])) {
				columns.insert({get.table_index, i});
			}
		}
		break;
	}
	case LogicalOperatorType::LOGICAL_PROJECTION: {
		auto &proj = op.Cast<LogicalProjection>();
		for (idx_t j = 0; j < proj.expressions.size(); j++) {
			if (IsFloatType(proj.expressions[j]->return_type) && CarriesFloatColumn(*proj.expressions[j], columns)) {
				columns.insert({proj.table_index, j});
			}
		}
		break;
	}
	case LogicalOperatorType::LOGICAL_AGGREGATE_AND_GROUP_BY: {
		auto &agg = op.Cast<LogicalAggregate>();
		for (auto &e : agg.expressions) {
			if (e->GetExpressionClass() != ExpressionClass::BOUND_AGGREGATE) {
				continue;
			}
			auto &a = e->Cast<BoundAggregateExpression>();
			ExactFloatKind kind;
			if (ExactStandIn(a.function, a.children, a.return_type, columns, kind)) {
				a.function = GetExactFloatFunction(kind);
				a.bind_info = nullptr;
			}
		}
		for (idx_t k = 0; k < agg.groups.size(); k++) {
			if (IsFloatType(agg.groups[k]->return_type) && CarriesFloatColumn(*agg.groups[k], columns)) {
				columns.insert({agg.group_index, k});
			}
		}
		break;
	}
	case LogicalOperatorType::LOGICAL_WINDOW: {
		auto &window = op.Cast<LogicalWindow>();
		for (auto &e : window.expressions) {
			if (e->GetExpressionClass() != ExpressionClass::BOUND_WINDOW) {
				continue;
			}
			auto &w = e->Cast<BoundWindowExpression>();
			ExactFloatKind kind;
			if (w.aggregate && ExactStandIn(*w.aggregate, w.children, w.return_type, columns, kind)) {
				w.aggregate = make_uniq<AggregateFunction>(GetExactFloatFunction(kind));
				w.bind_info = nullptr;
			}
		}
		break;
	}
	default:
		break; // other operators pass their children's bindings on unchanged, or make new ones
	}
}

} // namespace

void UseExactFloatSums(ClientContext &context, unique_ptr<LogicalOperator> &plan) {
	if (!SettingEnabled(context, kExactFloatSumsSetting)) {
		return;
	}
	FloatColumns columns;
	FollowFloats(*plan, columns);
}

} // namespace vortex
