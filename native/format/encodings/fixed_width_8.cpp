// The fixed-width encoder and decoder for 8-byte values (BIGINT, DOUBLE, TIMESTAMP, ...) (fixed_width.hpp).
#include "fixed_width_impl.hpp"

VTX_INSTANTIATE_FIXED_WIDTH(uint64_t);
