// The grouped scan (grouped_aggregate.hpp) over a key the zones are sorted by: GROUP BY a key
// with many groups a zone, which the table of groups cannot take cheaply (CheapToGroup), where
// the zones' statistics prove their key ranges follow each other. Each thread groups whole zones
// as runs (compute/sorted_groups.hpp) and hands on every group but a zone's first and last at
// once, as vectors; those two are merged across zones under a lock and handed on by the thread
// that finishes last. The optimizer (pushdown_optimizer.cpp, SortedKeyZones) decides.
#pragma once
#include "grouped_aggregate.hpp"

namespace vortex {

//! Whether a grouped aggregate over `files` can be answered as sorted runs: one key column of
//! integers of at most 8 bytes, with exact statistics and no NULL in every zone, each zone's min
//! at least the max of every zone before it (files in order); count(*), count, sum, avg, min and
//! max of such integer (or DECIMAL) columns.
bool SortedKeyZones(const GroupedBindData &bind);

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> SortedGroupsInit(duckdb::ClientContext &context,
                                                                      duckdb::TableFunctionInitInput &input);
duckdb::unique_ptr<duckdb::LocalTableFunctionState> SortedGroupsInitLocal(duckdb::ExecutionContext &context,
                                                                          duckdb::TableFunctionInitInput &input,
                                                                          duckdb::GlobalTableFunctionState *gstate);
void SortedGroupsScan(duckdb::ClientContext &context, duckdb::TableFunctionInput &data, duckdb::DataChunk &output);
//! The batch index of a thread's rows.
duckdb::idx_t SortedGroupsBatch(duckdb::LocalTableFunctionState &local);

} // namespace vortex
