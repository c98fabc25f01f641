#include "table_filters.hpp"


#include "../type_mapping.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"
#include "duckdb/execution/expression_executor.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/dynamic_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/null_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"

#include <algorithm>
#include <cstring>

namespace vortex {

using namespace duckdb;
using vtx::compute::CompareOp;
using vtx::compute::Predicate;

bool CompareOpOf(ExpressionType type, CompareOp &op) {
	switch (type) {
	case ExpressionType::COMPARE_EQUAL: op = CompareOp::EQ; return true;
	case ExpressionType::COMPARE_NOTEQUAL: op = CompareOp::NE; return true;
	case ExpressionType::COMPARE_LESSTHAN: op = CompareOp::LT; return true;
	case ExpressionType::COMPARE_LESSTHANOREQUALTO: op = CompareOp::LE; return true;
	case ExpressionType::COMPARE_GREATERTHAN: op = CompareOp::GT; return true;
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO: op = CompareOp::GE; return true;
	default: return false;
	}
}

namespace {

template <class T>
std::string Bytes(T v) {
	std::string raw(sizeof(T), '\0');
	std::memcpy(&raw[0], &v, sizeof(T));
	return raw;
}

bool TranslateConstant(const ConstantFilter &f, const LogicalType &type, Predicate &out) {
	CompareOp op;
	std::string raw;
	if (!CompareOpOf(f.comparison_type, op) || !ValueToRaw(type, f.constant, raw)) {
		return false;
	}
	out = Predicate::Compare(op, std::move(raw));
	return true;
}

} // namespace

bool ValueToRaw(const LogicalType &type, const Value &value, std::string &raw) {
	vtx::ColumnType ct;
	if (value.IsNull() || value.type() != type || !ToColumnType(type, ct) || !vtx::compute::PredicateSupported(ct)) {
		return false;
	}
	switch (type.InternalType()) {
	case PhysicalType::BOOL: raw = Bytes<uint8_t>(value.GetValueUnsafe<bool>() ? 1 : 0); return true;
	case PhysicalType::INT8: raw = Bytes(value.GetValueUnsafe<int8_t>()); return true;
	case PhysicalType::INT16: raw = Bytes(value.GetValueUnsafe<int16_t>()); return true;
	case PhysicalType::INT32: raw = Bytes(value.GetValueUnsafe<int32_t>()); return true;
	case PhysicalType::INT64: raw = Bytes(value.GetValueUnsafe<int64_t>()); return true;
	case PhysicalType::UINT8: raw = Bytes(value.GetValueUnsafe<uint8_t>()); return true;
	case PhysicalType::UINT16: raw = Bytes(value.GetValueUnsafe<uint16_t>()); return true;
	case PhysicalType::UINT32: raw = Bytes(value.GetValueUnsafe<uint32_t>()); return true;
	case PhysicalType::UINT64: raw = Bytes(value.GetValueUnsafe<uint64_t>()); return true;
	case PhysicalType::INT128: {
		auto h = value.GetValueUnsafe<hugeint_t>();
		// Assembled unsigned: shifting a negative upper half is undefined behaviour.
		auto bits = (static_cast<vtx::uint128>(static_cast<uint64_t>(h.upper)) << 64) | static_cast<vtx::uint128>(h.lower);
		raw = Bytes(static_cast<vtx::int128>(bits));
		return true;
	}
	case PhysicalType::UINT128: {
		auto h = value.GetValueUnsafe<uhugeint_t>();
		raw = Bytes((static_cast<vtx::uint128>(h.upper) << 64) | static_cast<vtx::uint128>(h.lower));
		return true;
	}
	case PhysicalType::FLOAT: raw = Bytes(value.GetValueUnsafe<float>()); return true;
	case PhysicalType::DOUBLE: raw = Bytes(value.GetValueUnsafe<double>()); return true;
	case PhysicalType::VARCHAR: raw = StringValue::Get(value); return true;
	default: return false;
	}
}

bool TranslateFilter(const TableFilter &filter, const LogicalType &type, FilterUse use, Predicate &out,
                     bool &dynamic) {
	switch (filter.filter_type) {
	case TableFilterType::CONSTANT_COMPARISON:
		return TranslateConstant(filter.Cast<ConstantFilter>(), type, out);
	case TableFilterType::IS_NULL:
	case TableFilterType::IS_NOT_NULL: {
		vtx::ColumnType ct;
		if (!ToColumnType(type, ct) || !vtx::compute::PredicateSupported(ct)) {
			return false;
		}
		out = Predicate();
		out.kind = filter.filter_type == TableFilterType::IS_NULL ? Predicate::Kind::IS_NULL : Predicate::Kind::IS_NOT_NULL;
		return true;
	}
	case TableFilterType::IN_FILTER: {
		out = Predicate();
		out.kind = Predicate::Kind::IN;
		for (auto &v : filter.Cast<InFilter>().values) {
			std::string raw;
			if (!ValueToRaw(type, v, raw)) {
				return false;
			}
			out.values.push_back(std::move(raw));
		}
		return true;
	}
	case TableFilterType::CONJUNCTION_AND:
	case TableFilterType::CONJUNCTION_OR: {
		Predicate p;
		p.kind = filter.filter_type == TableFilterType::CONJUNCTION_AND ? Predicate::Kind::AND : Predicate::Kind::OR;
		for (auto &child : (filter.filter_type == TableFilterType::CONJUNCTION_AND
		                           ? filter.Cast<ConjunctionAndFilter>().child_filters
		                           : filter.Cast<ConjunctionOrFilter>().child_filters)) {
			Predicate c;
			if (!TranslateFilter(*child, type, use, c, dynamic)) {
				return false;
			}
			p.children.push_back(std::move(c));
		}
		out = std::move(p);
		return true;
	}
	case TableFilterType::OPTIONAL_FILTER: {
		if (use == FilterUse::EXACT) {
			return false;
		}
		if (use == FilterUse::ROWS) {
			out = Predicate::True();
			return true;
		}
		// Implied by filters DuckDB keeps above the scan: applying it is allowed, not required.
		auto &child = filter.Cast<OptionalFilter>().child_filter;
		if (!child || !TranslateFilter(*child, type, use, out, dynamic)) {
			out = Predicate::True();
		}
		return true;
	}
	case TableFilterType::DYNAMIC_FILTER: {
		if (use == FilterUse::EXACT) {
			return false;
		}
		dynamic = true;
		auto &data = filter.Cast<DynamicFilter>().filter_data;
		if (!data) {
			out = Predicate::True();
			return true;
		}
		lock_guard<mutex> guard(data->lock);
		if (!data->initialized || !data->filter) {
			out = Predicate::True();
			return true;
		}
		return TranslateConstant(*data->filter, type, out);
	}
	default:
		return false;
	}
}

bool DynamicDirection(const TableFilter &filter, bool &descending) {
	if (filter.filter_type == TableFilterType::OPTIONAL_FILTER) {
		auto &child = filter.Cast<OptionalFilter>().child_filter;
		return child && DynamicDirection(*child, descending);
	}
	if (filter.filter_type != TableFilterType::DYNAMIC_FILTER) {
		return false;
	}
	auto &data = filter.Cast<DynamicFilter>().filter_data;
	if (!data) {
		return false;
	}
	lock_guard<mutex> guard(data->lock);
	if (!data->filter) {
		return false;
	}
	switch (data->filter->comparison_type) {
	case ExpressionType::COMPARE_GREATERTHAN:
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
		descending = true;
		return true;
	case ExpressionType::COMPARE_LESSTHAN:
	case ExpressionType::COMPARE_LESSTHANOREQUALTO:
		descending = false;
		return true;
	default:
		return false;
	}
}

bool ConstantMatches(ClientContext &context, const TableFilter &filter, const Value &value) {
	BoundConstantExpression column(value);
	auto expr = filter.ToExpression(column);
	auto result = ExpressionExecutor::EvaluateScalar(context, *expr, true);
	return !result.IsNull() && BooleanValue::Get(result.DefaultCastAs(LogicalType::BOOLEAN));
}

} // namespace vortex
