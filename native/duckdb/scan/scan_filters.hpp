// vortex_scan's filters: DuckDB's table filters (expr/table_filters.hpp) on the scan's columns,
// expressions taken out of DuckDB's plan, and, for partition columns and the file name, filters
// evaluated once per file by DuckDB itself.
#pragma once
#include "../expr/table_filters.hpp"
#include "scan_bind_data.hpp"

namespace vortex {

//! Half-open ranges of row numbers, ascending and disjoint.
using RowRanges = std::vector<std::pair<int64_t, int64_t>>;
//! The rows of [lo, hi) that `filter` (on file_row_number or the row id) keeps, exactly where it
//! must hold (optional and dynamic filters may be applied or not); false for a filter of another
//! shape, which is then left to DuckDB's evaluation.
bool RowsKept(const duckdb::TableFilter &filter, int64_t lo, int64_t hi, RowRanges &out);
RowRanges IntersectRows(const RowRanges &a, const RowRanges &b);

//! Whether vortex_scan takes table filters on this output column.
bool SupportsFilterOn(const ScanBindData &bind, duckdb::idx_t column);

//! vortex_scan's pushdown_complex_filter: takes the filters expression_filter.hpp describes out
//! of the plan (unless vortex_pushdown_expressions is off), and notes `column IS [NOT] NULL`
//! filters (which DuckDB keeps above the scan) so that zones whose null counts rule them out are
//! skipped.
void ScanComplexFilter(duckdb::ClientContext &context, duckdb::LogicalGet &get, duckdb::FunctionData *bind_data,
                       duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> &filters);

//! The constant a column holds for a whole file (hive partition or file name), if it is one.
bool FileConstant(const ScanBindData &bind, duckdb::idx_t column, duckdb::idx_t file, duckdb::Value &out);

} // namespace vortex
