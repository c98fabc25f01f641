#pragma once
#include <cstddef>
#include <cstdint>

namespace vtx {

//! CRC-32C (Castagnoli) of a byte range; hardware-accelerated where the CPU has SSE4.2.
uint32_t Crc32c(const void *data, size_t n);

} // namespace vtx
