#include "exact_float_sums.hpp"

#include "../functions/exact_float_sum_function.hpp"
#include "plan.hpp"
#include "../settings.hpp"
#include "../type_mapping.hpp"
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

//! Puts the exact aggregate in place of DuckDB's `function` where it sums such a column.
void UseExactWhereFloat(AggregateFunction &function, unique_ptr<FunctionData> &bind_info,
                        const vector<unique_ptr<Expression>> &children, const LogicalType &result,
                        const FloatColumns &columns) {
	ExactFloatKind kind;
	if (ExactFloatKindOf(function.name, kind) && function.arguments.size() == 1 &&
	    function.arguments[0].id() == LogicalTypeId::DOUBLE && result.id() == LogicalTypeId::DOUBLE &&
	    children.size() == 1 && CarriesFloatColumn(*children[0], columns)) {
		function = GetExactFloatFunction(kind);
		bind_info = nullptr;
	}
}

//! The bindings (table_index, j) of `expressions` that carry such a column.
void NoteCarried(const vector<unique_ptr<Expression>> &expressions, idx_t table_index, FloatColumns &columns) {
	for (idx_t j = 0; j < expressions.size(); j++) {
		if (IsFloatType(expressions[j]->return_type) && CarriesFloatColumn(*expressions[j], columns)) {
			columns.insert({table_index, j});
		}
	}
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
		NoteCarried(proj.expressions, proj.table_index, columns);
		break;
	}
	case LogicalOperatorType::LOGICAL_AGGREGATE_AND_GROUP_BY: {
		auto &agg = op.Cast<LogicalAggregate>();
		for (auto &e : agg.expressions) {
			if (e->GetExpressionClass() == ExpressionClass::BOUND_AGGREGATE) {
				auto &a = e->Cast<BoundAggregateExpression>();
				UseExactWhereFloat(a.function, a.bind_info, a.children, a.return_type, columns);
			}
		}
		NoteCarried(agg.groups, agg.group_index, columns);
		break;
	}
	case LogicalOperatorType::LOGICAL_WINDOW: {
		for (auto &e : op.Cast<LogicalWindow>().expressions) {
			if (e->GetExpressionClass() == ExpressionClass::BOUND_WINDOW) {
				auto &w = e->Cast<BoundWindowExpression>();
				if (w.aggregate) {
					UseExactWhereFloat(*w.aggregate, w.bind_info, w.children, w.return_type, columns);
				}
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
	if (!SettingEnabled(context, Setting::EXACT_FLOAT_SUMS)) {
		return;
	}
	FloatColumns columns;
	FollowFloats(*plan, columns);
}

} // namespace vortex
