// The table function that replaces `AGGREGATE(groups) <- vortex_scan`: it emits one row per
// group — the keys, then the finished aggregates — computed when the query runs, from zone
// statistics where a zone's keys are constant and from decoded rows elsewhere.
#pragma once
#include "grouped_order.hpp"
#include "plan.hpp"
#include "pushed_aggregate.hpp"

#include <map>

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
	//! Per key: null, or the bucket function (bucket_keys.hpp) whose results over the key column
	//! are the groups, over input column 0; with its display, and whether zone statistics may
	//! decide a zone's key from its min and max.
	duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> key_buckets;
	std::vector<std::string> bucket_display;
	std::vector<bool> bucket_monotone;
	std::vector<PushedAggregate> aggregates;
	std::vector<PushedFilter> filters;     //! applied exactly, as in the ungrouped pushed path
	std::vector<ExpressionFilter> expressions; //! taken by vortex_scan from the plan; all must hold
	FileColumns file_columns;                  //! partition keys and file names of `files`, for `expressions`
	std::vector<std::string> file_filters; //! partition / filename filters that pruned `files`, for EXPLAIN
	std::vector<KeyOrder> order; //! the query's ORDER BY, when taken into the scan (grouped_order.hpp)
	//! Grouped as runs of a key the zones are sorted by (sorted_grouped_scan.hpp), not in a table of groups.
	bool sorted = false;

	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
	bool IsHive(duckdb::idx_t column) const {
		return column >= fields.size();
	}
	//! The name of a key column: a field's, or a hive partition key's.
	const std::string &KeyName(duckdb::idx_t column) const {
		return IsHive(column) ? hive.keys[column - fields.size()] : fields[column].name;
	}
	//! How EXPLAIN names key `k`: its bucket function, or its column.
	const std::string &KeyDisplay(duckdb::idx_t k) const {
		return key_buckets[k] ? bucket_display[k] : KeyName(keys[k]);
	}
	//! DuckDB's type of key `k` before any transform: its bucket's result, or its column's.
	const duckdb::LogicalType &KeyType(duckdb::idx_t k) const {
		return key_buckets[k] ? key_buckets[k]->return_type
		       : IsHive(keys[k]) ? hive.types[keys[k] - fields.size()]
		                         : field_types[keys[k]];
	}
	bool SupportStatementCache() const override {
		return false;
	}
};

duckdb::TableFunction GetGroupedAggregateFunction();

//! The columns of one zone of a planned file, each decoded at most once, into buffers a thread
//! keeps from zone to zone (fresh zone-sized buffers cost a page fault per page).
class ZoneDecoder {
public:
	//! Reads from `reader` where given (the zone fetched beforehand, zone_fetch.hpp), else from the
	//! file's source.
	ZoneDecoder(const PlannedFile &file, duckdb::idx_t zone, const std::string &path,
	            std::map<duckdb::idx_t, vtx::DecodedColumn> &buffers, vtx::InputSource *reader = nullptr)
	    : file(file), reader(reader ? *reader : *file.source), zone(zone), path(path), buffers(buffers) {
	}
	//! Column `field` of the zone; a corrupt segment is an error naming the file.
	const vtx::DecodedColumn &operator()(duckdb::idx_t field);
	//! Column `field` for grouping only: a fixed-width dictionary chunk as its entries
	//! (`deferred.entries`) and per-row `codes`, its values not decoded; any other chunk as
	//! operator() gives it. Only vtx::compute::GroupedAggregation reads such a chunk.
	const vtx::DecodedColumn &Coded(duckdb::idx_t field);

private:
	const PlannedFile &file;
	vtx::InputSource &reader;
	duckdb::idx_t zone;
	const std::string &path;
	std::map<duckdb::idx_t, vtx::DecodedColumn> &buffers;
	std::map<duckdb::idx_t, const vtx::DecodedColumn *> decoded;
	std::map<duckdb::idx_t, const vtx::DecodedColumn *> coded; //! by Coded, where not in `decoded`
};


class ZoneFilter;
//! One thread's view of a grouped scan's filters.
ZoneFilter GroupedFilterOf(duckdb::ClientContext &context, const GroupedBindData &bind);

} // namespace vortex
