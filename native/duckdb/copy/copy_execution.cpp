#include "copy_execution.hpp"
#include "vortex_copy.hpp"
#include "../settings.hpp"

#include "duckdb/parallel/task_scheduler.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/operator/logical_copy_to_file.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/operator/logical_projection.hpp"

namespace vortex {

using namespace duckdb;

namespace {

//! Beyond this many threads, one thread feeding falls behind what the others encode.
constexpr int32_t kMostThreadsFedByOne = 4;

//! Column references, casts of them (COPY's own, for BIT and BIGNUM) and the narrowing DuckDB
//! wraps around a sort's columns (its compressed materialization): nothing much to compute.
bool OnlyMovesColumns(const Expression &expr) {
	switch (expr.GetExpressionClass()) {
	case ExpressionClass::BOUND_COLUMN_REF:
	case ExpressionClass::BOUND_REF:
	case ExpressionClass::BOUND_CONSTANT:
		return true;
	case ExpressionClass::BOUND_CAST:
		return OnlyMovesColumns(*expr.Cast<BoundCastExpression>().child);
	case ExpressionClass::BOUND_FUNCTION: {
		auto &function = expr.Cast<BoundFunctionExpression>();
		if (!StringUtil::StartsWith(function.function.name, "__internal_compress") &&
		    !StringUtil::StartsWith(function.function.name, "__internal_decompress")) {
			return false;
		}
		for (auto &child : function.children) {
			if (!OnlyMovesColumns(*child)) {
				return false;
			}
		}
		return true;
	}
	default:
		return false;
	}
}

//! Whether the rows reaching the COPY cost little to produce on one thread.
bool FedCheaply(const LogicalOperator &op) {
	switch (op.type) {
	case LogicalOperatorType::LOGICAL_PROJECTION:
		for (auto &expr : op.expressions) {
			if (!OnlyMovesColumns(*expr)) {
				return false;
			}
		}
		return FedCheaply(*op.children[0]);
	case LogicalOperatorType::LOGICAL_ORDER_BY:
	case LogicalOperatorType::LOGICAL_TOP_N:
		return true; // sorted in parallel before; the copy reads the result in order
	case LogicalOperatorType::LOGICAL_GET: {
		auto &name = op.Cast<LogicalGet>().function.name;
		return name == "seq_scan" || name == "vortex_scan" || name == "read_vortex" || name == "read_parquet" ||
		       name == "parquet_scan";
	}
	default:
		return false;
	}
}

void ChooseCopyExecution(OptimizerExtensionInput &input, unique_ptr<LogicalOperator> &plan) {
	auto *op = plan.get();
	while (op->type == LogicalOperatorType::LOGICAL_EXPLAIN) {
		op = op->children[0].get(); // EXPLAIN shows the plan the COPY runs with
	}
	if (op->type != LogicalOperatorType::LOGICAL_COPY_TO_FILE) {
		return;
	}
	auto &copy = op->Cast<LogicalCopyToFile>();
	// One file written in order; partitioned, rotated and per-thread copies are unordered anyway,
	// and so is a COPY that does not ask for order (DuckDB's parallel copy has no collections).
	if (!IsVortexOneFileCopy(copy)) {
		return;
	}
	const bool ordered = copy.preserve_order == PreserveOrderType::PRESERVE_ORDER ||
	                     (copy.preserve_order == PreserveOrderType::AUTOMATIC &&
	                      SettingEnabled(input.context, "preserve_insertion_order"));
	if (!ordered) {
		return;
	}
	if (TaskScheduler::GetScheduler(input.context).NumberOfThreads() > kMostThreadsFedByOne ||
	    !FedCheaply(*copy.children[0])) {
		return;
	}
	PlanEncodingOnTasks(copy);
}

} // namespace

OptimizerExtension GetCopyExecutionOptimizer() {
	OptimizerExtension ext;
	ext.optimize_function = ChooseCopyExecution;
	return ext;
}

} // namespace vortex
