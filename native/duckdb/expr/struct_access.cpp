#include "struct_access.hpp"

#include "duckdb/function/function_binder.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"

namespace vortex {

using namespace duckdb;

void StructSubscriptsAsExtracts(ClientContext &context, unique_ptr<Expression> &e) {
	ExpressionIterator::EnumerateChildren(*e, [&](unique_ptr<Expression> &child) { StructSubscriptsAsExtracts(context, child); });
	if (e->GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return;
	}
	auto &fn = e->Cast<BoundFunctionExpression>();
	if (fn.function.name != "array_extract" || fn.children.size() != 2 ||
	    fn.children[0]->return_type.id() != LogicalTypeId::STRUCT ||
	    fn.children[1]->GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
		return;
	}
	auto &key = fn.children[1]->Cast<BoundConstantExpression>().value;
	if (key.IsNull()) {
		return;
	}
	vector<unique_ptr<Expression>> args;
	args.push_back(fn.children[0]->Copy());
	string name;
	// DuckDB's filter pushdown reads the key as a constant of exactly the function's argument
	// type (it casts the child without checking), so the constant is made of that type here.
	if (key.type().id() == LogicalTypeId::VARCHAR) {
		name = "struct_extract";
		args.push_back(make_uniq<BoundConstantExpression>(key));
	} else if (key.type().IsIntegral()) {
		Value index = key;
		if (!index.DefaultTryCastAs(LogicalType::BIGINT)) {
			return;
		}
		name = "struct_extract_at";
		args.push_back(make_uniq<BoundConstantExpression>(index));
	} else {
		return;
	}
	unique_ptr<Expression> bound;
	try {
		ErrorData error;
		bound = FunctionBinder(context).BindScalarFunction(DEFAULT_SCHEMA, name, std::move(args), error);
	} catch (std::exception &) {
		return; // not bindable (an out-of-range index never is: the subscript bound already)
	}
	if (!bound || bound->return_type != e->return_type || bound->GetExpressionClass() != ExpressionClass::BOUND_FUNCTION ||
	    bound->Cast<BoundFunctionExpression>().children[1]->GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
		return;
	}
	e = std::move(bound);
}

} // namespace vortex
