#pragma once
#include <napi.h>

namespace vortex_addon {

//! The extension points' tables as JavaScript: { settings: [...], aggregates: [...] } (the rows of
//! native/duckdb/settings.hpp and native/duckdb/pushdown/aggregate_catalog.cpp), so that the
//! TypeScript mirrors in src/catalog.ts can be checked against them.
Napi::Object CatalogObject(Napi::Env env);

} // namespace vortex_addon
