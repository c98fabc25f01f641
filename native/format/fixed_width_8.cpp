// The fixed-width encoder and decoder for 8-byte values (BIGINT, DOUBLE, TIMESTAMP, ...) (fixed_width.hpp).
#include "fixed_width_impl.hpp"

namespace vtx {
namespace encoding_internal {

template Encoding EncodeFixed<uint64_t>(const ColumnInput &in, ByteWriter &out);
template bool DecodeFixed<uint64_t>(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                           const RowRange *range);

} // namespace encoding_internal
} // namespace vtx
