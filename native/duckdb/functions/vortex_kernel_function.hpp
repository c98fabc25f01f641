#pragma once
#include "duckdb.hpp"

namespace vortex {

//! vortex_kernel(path, column, kernel, skip_nans := true): one aggregate evaluated with
//! Vortex's own semantics (sum of nothing = 0, mean of nothing = NaN). It exists so the
//! coherence report can measure the "Vortex" column instead of transcribing it.
duckdb::TableFunction GetVortexKernelFunction();

} // namespace vortex
