#pragma once
#include "pushdown/rules_table.hpp"

namespace vortex {

struct Registration {
	//! True when this call registered the extension; false when the database already had it.
	bool registered = false;
	//! The rules the database's optimizer uses: this call's when it registered, else the first
	//! registration's. Null when the database has an extension named "vortex" that is not this one.
	duckdb::shared_ptr<RulesTable> rules;
};

//! Registers vortex_scan, vortex_kernel, COPY (FORMAT vortex), the '*.vtx' replacement scan,
//! the settings and the pushdown optimizer into a database, once: when this database already
//! has them it changes nothing and returns the rules it was registered with. Safe while other
//! connections of the database run queries, and when called from several threads at once
//! (exactly one call registers).
Registration RegisterVortex(duckdb::DatabaseInstance &db, duckdb::shared_ptr<RulesTable> rules);

//! The DuckDB version the addon was compiled against, e.g. "vX.Y.Z".
const char *CompiledDuckDBVersion();

} // namespace vortex
