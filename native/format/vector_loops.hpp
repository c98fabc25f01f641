// Loops the compiler vectorizes are built twice on x86-64 Linux with GCC: for the baseline the
// prebuilt binaries target (SSE2, which has no 64-bit integer compare) and for AVX2, chosen once
// at load time by the CPU (function multiversioning through an ifunc). Elsewhere, one build.
#pragma once

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define VTX_VECTOR_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define VTX_VECTOR_LOOP
#endif
