// The table function that replaces `AGGREGATE <- vortex_scan`: it emits one row holding
// the finished aggregates, computed when the query runs (not when it is planned, since a
// prepared statement is planned once and may run many times against changing files).
#pragma once
#include "../../compute/aggregate_state.hpp"
#include "../../compute/kernels.hpp"
#include "../../format/file/metadata.hpp"
#include "../../format/file/reader.hpp"
#include "duckdb.hpp"

#include <functional>
#include "plan.hpp"

namespace vortex {

struct PushedBindData : public duckdb::TableFunctionData {
	std::vector<ScanFile> files; //! with the footers the plan was made from
	std::vector<vtx::Field> fields;
	duckdb::vector<duckdb::LogicalType> field_types;
	//! Aggregates over struct fields: PushedAggregate::field is fields.size() + k for leaves[k].
	std::vector<StructLeaf> leaves;

	const vtx::ColumnType &FieldType(duckdb::idx_t field) const {
		return field < fields.size() ? fields[field].type : leaves[field - fields.size()].type;
	}
	const duckdb::LogicalType &FieldLogicalType(duckdb::idx_t field) const {
		return field < fields.size() ? field_types[field] : leaves[field - fields.size()].logical;
	}
	const vtx::ChunkMeta &Chunk(const vtx::ZoneMeta &zone, duckdb::idx_t field) const;
	//! Reads a column or struct leaf of one zone.
	//! With `rows`, a flat field may decode only the blocks of those rows (see vtx::ReadChunk).
	void Read(vtx::InputSource &source, const vtx::FileMetadata &meta, size_t zone, duckdb::idx_t field,
	          vtx::DecodedColumn &out, const vtx::RowRange *rows = nullptr) const;
	std::vector<PushedAggregate> aggregates;
	std::vector<PushedFilter> filters; //! all must hold (files already pruned by partition filters)
	std::vector<ExpressionFilter> expressions; //! taken by vortex_scan from the plan; all must hold
	FileColumns file_columns;                  //! partition keys and file names of `files`, for `expressions`
	std::vector<std::string> file_filters; //! partition / file name filters, for EXPLAIN

	//! How the filters reach this aggregate's columns, struct leaves included (zone_filters.hpp).
	FilterColumns Columns() const;

	duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
	bool Equals(const duckdb::FunctionData &other) const override;
	bool SupportStatementCache() const override {
		return false;
	}
};

duckdb::TableFunction GetPushedAggregateFunction();

//! The filters a pushed aggregate applies and those that pruned its files, one per line, for
//! EXPLAIN's "Filters" (empty when there are none).
std::string FiltersText(const std::vector<PushedFilter> &filters, const std::vector<ExpressionFilter> &expressions,
                        const std::vector<std::string> &file_filters);

//! What `s` accumulated for aggregate `a` over `rows` rows (of a column of type `stored`), as its
//! row's finalize reads it; `s` and `stored` are null for count_star.
Accumulated AccumulatedOf(const PushedAggregate &a, const vtx::compute::AggregateState *s, uint64_t rows,
                          const duckdb::LogicalType *stored);

} // namespace vortex
