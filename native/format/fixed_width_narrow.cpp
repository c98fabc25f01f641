// The fixed-width encoder and decoder for 1-, 2- and 16-byte values (fixed_width.hpp).
#include "fixed_width_impl.hpp"

namespace vtx {
namespace encoding_internal {

template Encoding EncodeFixed<uint8_t>(const ColumnInput &in, ByteWriter &out);
template bool DecodeFixed<uint8_t>(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                           const RowRange *range);
template Encoding EncodeFixed<uint16_t>(const ColumnInput &in, ByteWriter &out);
template bool DecodeFixed<uint16_t>(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                           const RowRange *range);
template Encoding EncodeFixed<uint128>(const ColumnInput &in, ByteWriter &out);
template bool DecodeFixed<uint128>(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                           const RowRange *range);

} // namespace encoding_internal
} // namespace vtx
