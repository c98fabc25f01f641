// Which functions of a TIMESTAMP or DATE native/compute's calendar kernel computes
// (compute/calendar.hpp): a TIMESTAMP's truncation to a second, minute, hour or day, its day (a
// DATE), its calendar fields, and a DATE's calendar fields, exactly as DuckDB's own functions.
#pragma once
#include "../../compute/calendar.hpp"
#include "duckdb.hpp"

namespace vortex {

//! Where `f` (over input 0, a BoundReferenceExpression) is such a function: its kernel key, and
//! whether its input is a DATE (`of_dates`) rather than a TIMESTAMP.
bool CalendarKernelOf(const duckdb::Expression &f, vtx::compute::TimestampKey &key, bool &of_dates);

} // namespace vortex
