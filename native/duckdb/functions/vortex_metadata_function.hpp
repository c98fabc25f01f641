#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_metadata(path, verify := true): the footer of one .vtx file, one row per
//! (zone, column): where the segment lives, how it is stored, its zone statistics, and
//! (when `verify`) whether the segment's checksum holds. It exists for `vtx inspect`.
duckdb::TableFunction GetVortexMetadataFunction();

} // namespace vortex
