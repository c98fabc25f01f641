// Entry points for the package's own test suite, exported as `__test`: they reach planner
// internals that SQL cannot show. Not part of the public API.
#pragma once
#include <napi.h>

namespace vortex_addon {

void AddTestHooks(Napi::Env env, Napi::Object exports);

} // namespace vortex_addon
