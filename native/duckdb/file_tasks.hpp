// The per-file work of a scan over many files (opening each file and reading its footer), done on
// DuckDB's threads at once. On an object store each footer is a request of 20-100 ms, so a bind
// that read 200 footers one after another waited 200 round trips where read_parquet, whose scan
// threads open its files, waits 200 / threads.
#pragma once
#include "duckdb.hpp"

#include <functional>

namespace vortex {

//! Runs `work(i)` for every i in [0, count), side by side on up to DuckDB's `threads` threads: the
//! calling thread works too, and DuckDB's idle threads take tasks from its scheduler, so a bind or
//! a scan's initialization (which cannot wait for executor events) still gets them. Returns once
//! every call has returned. Errors are those a plain loop would raise: the error of the first
//! file in order that failed (no file after a failed one is started once the failure is known),
//! so a query over a dataset with several bad files names the same one every time.
void ForEachFile(duckdb::ClientContext &context, duckdb::idx_t count, const std::function<void(duckdb::idx_t)> &work);

} // namespace vortex
