// The table function that replaces `AGGREGATE(groups) <- vortex_scan`: it emits one row per
// group — the keys, then the finished aggregates — computed when the query runs, from zone
// statistics where a zone's keys are constant and from decoded rows elsewhere.
#pragma once
#include "grouped_order.hpp"
#include "pushed_aggregate.hpp"

namespace vortex {

struct GroupedBindData : public duckdb::TableFunctionData {
	std::vector<ScanFile> files; //! with the footers the plan was made from
	std::vector<vtx::Field> fields;
	duckdb::vector<duckdb::LogicalType> field_types;
	std::vector<duckdb::idx_t> keys; //! scan columns grouped by, in GROUP BY order: fields or hive keys
	HivePartitions hive;
	//! Per key: null, or the injective function DuckDB applies to it (compressed
	//! materialization), over input column 0.
	duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> key_transforms;
	std::vector<PushedAggregate> aggregates;
	std::vector<PushedFilter> filters;     //! applied exactly, as in the ungrouped pushed path
	std::vector<std::string> file_filters; //! partition / filename filters that pruned `files`, for EXPLAIN
	std::vector<KeyOrder> order; //! the query's ORDER BY, when taken into the scan (grouped_order.hpp)

	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
	bool IsHive(duckdb::idx_t column) const {
		return column >= fields.size();
	}
	//! The name of a key column: a field's, or a hive partition key's.
	const std::string &KeyName(duckdb::idx_t column) const {
		return IsHive(column) ? hive.keys[column - fields.size()] : fields[column].name;
	}
	bool SupportStatementCache() const override {
		return false;
	}
};

duckdb::TableFunction GetGroupedAggregateFunction();

} // namespace vortex
