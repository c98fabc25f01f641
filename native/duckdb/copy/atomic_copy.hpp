// COPY ... (FORMAT vortex) replaces its target atomically by itself: it writes
// "<target>.tmp-XXXXXXXX" and renames it over the target once complete. DuckDB's own
// USE_TMP_FILE mechanism (on by default when the target exists) instead removes the target and
// then moves "tmp_<name>" into place, so for a moment there is no file at all: concurrent
// readers fail with "No files found", and a process killed in between loses the old file.
// This optimizer rule turns DuckDB's mechanism off for vortex COPYs wherever ours can run,
// i.e. wherever DuckDB's access settings would have admitted DuckDB's temporary file; where they
// would not, DuckDB's mechanism is left in place so the COPY is refused exactly as for Parquet.
#pragma once
#include "../duckdb_compat.hpp"

namespace vortex {

duckdb::OptimizerExtension GetAtomicCopyOptimizer();

} // namespace vortex
