// Optional general-purpose compression of an encoded segment, with the zstd and lz4
// that DuckDB bundles (and libduckdb.so exports).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vtx {

enum class Codec : uint8_t { NONE = 0, ZSTD = 1, LZ4 = 2 };

bool ParseCodec(const std::string &name, Codec &out);
const char *CodecName(Codec c);

//! Compresses `in`; returns false (and leaves `out` alone) when it would not save space.
bool Compress(Codec codec, int level, const std::vector<uint8_t> &in, std::vector<uint8_t> &out);
//! Throws FormatError when `raw_size` cannot be what the compressed bytes hold: a zstd frame
//! that declares another content size, an lz4 block that would exceed lz4's largest ratio.
//! Called before the output buffer is allocated, so a lying footer cannot make a reader
//! allocate gigabytes for a few bytes of input.
void CheckDecompressedSize(Codec codec, const uint8_t *in, size_t n, size_t raw_size);
//! Decompresses exactly `raw_size` bytes or throws FormatError.
void Decompress(Codec codec, const uint8_t *in, size_t n, uint8_t *out, size_t raw_size);

} // namespace vtx
