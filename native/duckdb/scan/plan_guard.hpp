// A query is planned with the footers read at bind time: DuckDB is told exact column bounds and
// NULL-freedom, and acts on them while planning (count(x) becomes count_star(), sum picks an
// unchecked int64 state, filters fold). Prepared statements are re-bound on every execution
// (ScanBindData::SupportStatementCache), so only a file replaced between binding and the start
// of execution of one statement can invalidate a plan. These checks run at execution: a file
// that changed must still fit what the planner was told, or the statement fails naming it.
#pragma once
#include "scan_bind_data.hpp"

namespace vortex {

//! What the planner was told about one column over all files: min/max (raw, in the format's
//! encoding) and whether NULLs and non-NULL values may occur. `known` is false when nothing
//! was reported (the planner then assumes nothing).
struct ColumnEnvelope {
	bool known = false;
	bool has_null = false;
	bool has_value = false;
	std::string min;
	std::string max;
	//! VARCHAR: the longest value's length in bytes, and whether any value is not ASCII.
	uint32_t max_length = 0;
	bool unicode = false;
};

//! True for the types whose bounds vortex_scan reports to DuckDB's planner.
bool ReportsNumericStats(const duckdb::LogicalType &type);
//! VARCHAR: its bounds, longest length and ASCII-ness are reported where every zone lists its
//! distinct values (low-cardinality columns, which DuckDB then compresses into small integers
//! in its hash tables).
bool ReportsStringStats(const duckdb::LogicalType &type);

//! The bounds reported for column `field` over `files` (the bind-time footers).
ColumnEnvelope PlannedEnvelope(const std::vector<ScanFile> &files, const vtx::Field &field,
                               const duckdb::LogicalType &type, duckdb::idx_t column);

//! Whether `now` is the very version of the file whose footer was planned with.
bool SameFileVersion(const vtx::FileMetadata &planned, const vtx::FileMetadata &now);

//! The same paths, in the same order, at the same versions (for FunctionData::Equals).
bool SamePlannedFiles(const std::vector<ScanFile> &a, const std::vector<ScanFile> &b);

//! Throws unless `now` (file `file` of `planned`, as read at execution) has the planned schema
//! and fits every planned column envelope.
void CheckFitsPlan(const std::vector<ScanFile> &planned, duckdb::idx_t file, const std::vector<vtx::Field> &fields,
                   const duckdb::vector<duckdb::LogicalType> &types, const vtx::FileMetadata &now);

//! File `file` of a plan, ready to read: the handle held since binding when there is one (the
//! planned version itself), else the file opened again and checked with CheckFitsPlan.
struct PlannedFile {
	std::unique_ptr<FileSource> source;
	std::shared_ptr<const vtx::FileMetadata> meta;
};
PlannedFile OpenPlannedFile(duckdb::ClientContext &context, const std::vector<ScanFile> &planned, duckdb::idx_t file,
                            const std::vector<vtx::Field> &fields, const duckdb::vector<duckdb::LogicalType> &types);
//! Every file of a plan, in order, each as OpenPlannedFile opens it, side by side (file_tasks.hpp):
//! files not held since binding are opened and validated again, a request each on an object store
//! where the open had no listing.
std::vector<PlannedFile> OpenPlannedFiles(duckdb::ClientContext &context, const std::vector<ScanFile> &planned,
                                          const std::vector<vtx::Field> &fields,
                                          const duckdb::vector<duckdb::LogicalType> &types);

} // namespace vortex
