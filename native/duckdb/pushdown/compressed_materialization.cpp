#include "compressed_materialization.hpp"

#include "duckdb/planner/expression/bound_function_expression.hpp"

namespace vortex {

using namespace duckdb;

namespace {

bool NamedLike(const Expression &e, const char *integral, const char *string) {
	if (e.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return false;
	}
	auto &fn = e.Cast<BoundFunctionExpression>();
	return !fn.children.empty() &&
	       (StringUtil::StartsWith(fn.function.name, integral) || StringUtil::StartsWith(fn.function.name, string));
}

} // namespace

bool IsCompressFunction(const Expression &e) {
	return NamedLike(e, "__internal_compress_integral_", "__internal_compress_string_");
}

bool IsDecompressFunction(const Expression &e) {
	return NamedLike(e, "__internal_decompress_integral_", "__internal_decompress_string");
}

} // namespace vortex
