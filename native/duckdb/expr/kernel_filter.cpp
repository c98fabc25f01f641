#include "kernel_filter.hpp"

#include "calendar_kernels.hpp"
#include "table_filters.hpp"
#include "../../compute/selection.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"

namespace vortex {

using namespace duckdb;
using vtx::compute::CompareOp;
using vtx::compute::Predicate;

namespace {

//! The raw bytes of a non-NULL BIGINT constant, as the keys are stored.
bool KeyConstant(const Expression &e, std::string &raw) {
	return e.GetExpressionClass() == ExpressionClass::BOUND_CONSTANT && e.return_type.id() == LogicalTypeId::BIGINT &&
	       !e.Cast<BoundConstantExpression>().value.IsNull() &&
	       ValueToRaw(LogicalType::BIGINT, e.Cast<BoundConstantExpression>().value, raw);
}

//! `e` as a predicate on the keys of `field` (the first field met, set by the first leaf).
bool Build(const Expression &e, const Expression *&field, Predicate &out) {
	auto same_field = [&](const Expression &f) {
		if (!field) {
			field = &f;
		}
		return f.Equals(*field);
	};
	switch (e.GetExpressionClass()) {
	case ExpressionClass::BOUND_CONJUNCTION: {
		out.kind = e.GetExpressionType() == ExpressionType::CONJUNCTION_AND ? Predicate::Kind::AND : Predicate::Kind::OR;
		for (auto &child : e.Cast<BoundConjunctionExpression>().children) {
			Predicate p;
			if (!Build(*child, field, p)) {
				return false;
			}
			out.children.push_back(std::move(p));
		}
		return !out.children.empty();
	}
	case ExpressionClass::BOUND_COMPARISON: {
		auto &cmp = e.Cast<BoundComparisonExpression>();
		std::string raw;
		CompareOp op;
		if (KeyConstant(*cmp.right, raw) && same_field(*cmp.left) && CompareOpOf(e.GetExpressionType(), op)) {
			out = Predicate::Compare(op, raw);
			return true;
		}
		if (KeyConstant(*cmp.left, raw) && same_field(*cmp.right) &&
		    CompareOpOf(FlipComparisonExpression(e.GetExpressionType()), op)) {
			out = Predicate::Compare(op, raw);
			return true;
		}
		return false;
	}
	case ExpressionClass::BOUND_BETWEEN: {
		auto &b = e.Cast<BoundBetweenExpression>();
		std::string lo, hi;
		if (!KeyConstant(*b.lower, lo) || !KeyConstant(*b.upper, hi) || !same_field(*b.input)) {
			return false;
		}
		out.kind = Predicate::Kind::AND;
		out.children.push_back(Predicate::Compare(b.lower_inclusive ? CompareOp::GE : CompareOp::GT, lo));
		out.children.push_back(Predicate::Compare(b.upper_inclusive ? CompareOp::LE : CompareOp::LT, hi));
		return true;
	}
	case ExpressionClass::BOUND_OPERATOR: {
		auto &op = e.Cast<BoundOperatorExpression>();
		if (e.GetExpressionType() != ExpressionType::COMPARE_IN || op.children.size() < 2 || !same_field(*op.children[0])) {
			return false; // NOT IN is NULL, not FALSE, where the list holds a NULL: left to DuckDB
		}
		out.kind = Predicate::Kind::IN;
		for (idx_t i = 1; i < op.children.size(); i++) {
			std::string raw;
			if (!KeyConstant(*op.children[i], raw)) {
				return false;
			}
			out.values.push_back(std::move(raw));
		}
		return true;
	}
	default:
		return false;
	}
}

} // namespace

std::unique_ptr<KernelFilter> KernelFilter::Plan(const Expression &filter) {
	const Expression *field = nullptr;
	Predicate predicate;
	vtx::compute::TimestampKey key;
	bool of_dates = false;
	if (!Build(filter, field, predicate) || !field || field->return_type.id() != LogicalTypeId::BIGINT ||
	    !CalendarKernelOf(*field, key, of_dates) || vtx::compute::TimestampKeyWidth(key) != 8) {
		return nullptr;
	}
	return std::unique_ptr<KernelFilter>(new KernelFilter(key, of_dates, std::move(predicate)));
}

bool KernelFilter::Evaluate(const vtx::DecodedColumn &column, uint8_t *out) {
	const uint64_t rows = column.count;
	if (column.all_null || column.deferred.encoding != 0 || column.decoded_begin > 0 || column.decoded_end < rows) {
		return false;
	}
	scratch.count = rows;
	scratch.fixed.resize(rows * sizeof(int64_t));
	auto keys_out = reinterpret_cast<int64_t *>(scratch.fixed.data());
	const bool keyed = of_dates ? keys.OfDates(reinterpret_cast<const int32_t *>(column.Fixed()), rows, keys_out)
	                            : keys.OfTimestamps(reinterpret_cast<const int64_t *>(column.Fixed()), rows, keys_out);
	if (!keyed) {
		return false;
	}
	static const vtx::ColumnType kKeys {}; // INT64
	vtx::compute::EvaluatePredicate(predicate, kKeys, scratch, out);
	// NULL in, NULL key: no comparison holds on it.
	if (!column.all_valid) {
		vtx::compute::AndValidity(out, column.validity.data(), rows);
	}
	return true;
}

} // namespace vortex
