// An expression of one column evaluated on one value by DuckDB's own ExpressionExecutor: zone
// statistics are bounded by what a function gives at a zone's min and max (bucket keys, calendar
// truncations, filter terms). Those ends may be rows a filter removes, on which DuckDB evaluates
// nothing, so an error there (a cast out of range, a truncation before the first timestamp) is
// no answer about the zone, never the query's error.
#pragma once
#include "duckdb.hpp"
#include "duckdb/execution/expression_executor.hpp"

namespace vortex {

//! Whether an error raised while evaluating a function on a zone's end only means "no answer":
//! not an interrupted query, nor an error DuckDB treats as internal or fatal, which pass on.
bool NoAnswer(const std::exception &ex);

class ValueEvaluator {
public:
	//! `e` reads its input as column 0, of type `input`.
	ValueEvaluator(duckdb::ClientContext &context, const duckdb::Expression &e, duckdb::LogicalType input);

	//! `e` at `input` (NULL in: a NULL of the input type): false where DuckDB raises an error on it
	//! (other than an interrupt or an internal or fatal error, which pass on).
	bool At(const duckdb::Value &input, duckdb::Value &out);

private:
	const duckdb::Expression &e;
	duckdb::LogicalType input_type;
	duckdb::ExpressionExecutor executor;
	duckdb::DataChunk row; //! one row, reused
};

} // namespace vortex
