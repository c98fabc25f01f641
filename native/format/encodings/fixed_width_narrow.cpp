// The fixed-width encoder and decoder for 1-, 2- and 16-byte values (fixed_width.hpp).
#include "fixed_width_impl.hpp"

VTX_INSTANTIATE_FIXED_WIDTH(uint8_t);
VTX_INSTANTIATE_FIXED_WIDTH(uint16_t);
VTX_INSTANTIATE_FIXED_WIDTH(vtx::uint128);
