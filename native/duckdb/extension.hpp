#pragma once
#include "rules_table.hpp"

namespace vortex {

//! Registers vortex_scan, vortex_kernel, COPY (FORMAT vortex), the '*.vtx' replacement scan,
//! the settings and the pushdown optimizer into a database, once: returns false (and
//! changes nothing) when this database already has them.
bool RegisterVortex(duckdb::DatabaseInstance &db, duckdb::shared_ptr<RulesTable> rules);

//! The DuckDB version the addon was compiled against, e.g. "v1.4.4".
const char *CompiledDuckDBVersion();

} // namespace vortex
