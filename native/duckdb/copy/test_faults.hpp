// Failures the test suite injects into COPY through the environment (VORTEX_TEST_FAULT=<name>):
//   copy_after_create  just after the temporary file is created (vortex_copy.cpp);
//   copy_encode_zone   in every zone's encoding, on whichever thread encodes it (zone_accumulator.cpp).
#pragma once
#include <cstdlib>
#include <cstring>

namespace vortex {

inline bool FaultInjected(const char *name) {
	auto v = std::getenv("VORTEX_TEST_FAULT");
	return v && std::strcmp(v, name) == 0;
}

} // namespace vortex
