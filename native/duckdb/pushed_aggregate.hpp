// The table function that replaces `AGGREGATE <- vortex_scan`: it emits one row holding
// the finished aggregates, computed when the query runs (not when it is planned, since a
// prepared statement is planned once and may run many times against changing files).
#pragma once
#include "../compute/kernels.hpp"
#include "../format/metadata.hpp"
#include "duckdb.hpp"

namespace vortex {

enum class AggregateKind : uint8_t { COUNT_STAR, COUNT, SUM, AVG, MIN, MAX };

struct PushedAggregate {
	AggregateKind kind;
	duckdb::idx_t field = 0;          //! scan column (unused for count_star)
	duckdb::LogicalType bound_type;   //! argument type as DuckDB bound the aggregate (after lossless casts)
	duckdb::LogicalType result_type;  //! the aggregate's return type
	bool skip_nans = false;
	bool empty_is_null = true;
	std::string display;              //! e.g. "sum(x)" for EXPLAIN
};

struct PushedBindData : public duckdb::TableFunctionData {
	std::vector<std::string> paths;
	std::vector<vtx::Field> fields;
	duckdb::vector<duckdb::LogicalType> field_types;
	std::vector<PushedAggregate> aggregates;

	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
};

duckdb::TableFunction GetPushedAggregateFunction();

} // namespace vortex
