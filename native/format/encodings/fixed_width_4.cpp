// The fixed-width encoder and decoder for 4-byte values (INTEGER, FLOAT, DATE, ...) (fixed_width.hpp).
#include "fixed_width_impl.hpp"

VTX_INSTANTIATE_FIXED_WIDTH(uint32_t);
