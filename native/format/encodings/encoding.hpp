// Lightweight encodings of a column chunk, chosen per chunk by size: the rows of VTX_ENCODINGS,
// each in a file of its own. Strings have plain, constant and dictionary (encoding.cpp).
#pragma once
#include "../bytes.hpp"
#include "../column.hpp"
#include "value_hint.hpp"

namespace vtx {

//! The encodings, one row each: X(identifier, id, name, version, codec). The id is written into
//! files: never reuse or renumber one. The name is what vortex_metadata shows. The version is the
//! format version that introduced the encoding: a writer marks a file that uses it with at least
//! that version, so that older readers refuse the file up front. The codec is the struct in the
//! encoding's own file that chooses, writes and reads its fixed-width values (encoding_internal.hpp
//! says what it provides). The choice tries the rows in this order, the first of equal sizes winning.
#define VTX_ENCODINGS(X)                                                                                               \
	X(PLAIN, 0, "plain", 1, PlainCodec)                                                                                \
	X(CONSTANT, 1, "constant", 1, ConstantCodec)                                                                       \
	X(FOR_BITPACK, 2, "for+bitpack", 1, FrameCodec)                                                                    \
	X(RLE, 3, "rle", 1, RunsCodec)                                                                                     \
	X(ALP, 5, "alp", 2, AlpCodec)                                                                                      \
	X(DICTIONARY, 4, "dictionary", 1, DictionaryCodec)

#define VTX_ENCODING_ID(identifier, id, name, version, codec) identifier = id,
enum class Encoding : uint8_t { VTX_ENCODINGS(VTX_ENCODING_ID) };
#undef VTX_ENCODING_ID

//! The name of an encoding id, "unknown" for an id no row has.
const char *EncodingName(Encoding e);
//! The format version that introduced an encoding (1 for an id no row has: the reader refuses it).
uint32_t EncodingVersion(Encoding e);
//! The newest version any encoding needs: the format's version is at least this.
constexpr uint32_t NewestEncodingVersion() {
	uint32_t newest = 1;
#define VTX_ENCODING_VERSION(identifier, id, name, version, codec) newest = newest > (version) ? newest : (version);
	VTX_ENCODINGS(VTX_ENCODING_VERSION)
#undef VTX_ENCODING_VERSION
	return newest;
}

//! Encodes validity and values into `out` (the segment body before block compression).
//! Returns the encoding used for the values. With `hint`, says what the encoding learnt of the
//! distinct valid values (a chunk with no valid value leaves it UNKNOWN).
Encoding EncodeChunk(const ColumnInput &in, ByteWriter &out, ValueHint *hint = nullptr);

//! Decodes a segment body written by EncodeChunk. Throws FormatError on anything malformed.
//! The body is moved into `out.buffer` and read from offset `start`; strings and plain
//! fixed-width values may point into it.
//! With `range`, frame-of-reference and ALP chunks decode only the 64-row blocks it touches.
//! With `defer`, frame-of-reference, dictionary and run-length values whose domain the encoding
//! settles are left packed (DecodedColumn::deferred) for DecodeRows.
void DecodeChunk(const ColumnType &type, uint64_t rows, ByteBuffer &&body, DecodedColumn &out, size_t start = 0,
                 const RowRange *range = nullptr, bool defer = false);
//! Decodes rows [begin, end) of a chunk whose values were deferred into out[0, (end - begin) *
//! width): a buffer the caller reuses, such as a query engine's vector, which stays in the CPU's
//! cache. `begin` is a multiple of 64. Throws FormatError on a dictionary code out of range.
void DecodeRows(const ColumnType &type, const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint8_t *out);
//! As DecodeRows, for the rows base + rows[i] (i < n, `rows` ascending) alone, into out[0, n *
//! width): for a vector of which a filter kept few rows, each read without unpacking its block.
void DecodeRowsAt(const ColumnType &type, const DecodedColumn &chunk, uint64_t base, const uint32_t *rows, uint64_t n,
                  uint8_t *out);
//! For a chunk whose values were left in their dictionary (deferred.encoding DICTIONARY): the codes
//! of rows [begin, end) into codes[0, end - begin), each checked against the dictionary's size.
void DecodeCodes(const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint32_t *codes);
//! Whether a chunk's values were left as entries its rows pick (deferred.entries, deferred.size of
//! them): a dictionary's values or runs' (the codec's EntryCodec).
bool DeferredAsEntries(const DecodedColumn &chunk);
//! For a chunk whose values were left as entries (DeferredAsEntries): per row of [begin, end), the
//! index of its value among deferred.entries (its code, or its run), into out[0, end - begin);
//! `begin` a multiple of 64. A consumer that looks values up once per entry reads them so.
void DecodeEntryIndexes(const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint32_t *out);
void DecodeChunk(const ColumnType &type, uint64_t rows, std::vector<uint8_t> &&body, DecodedColumn &out);

//! The value encoding recorded in a segment body (for inspection), without decoding.
Encoding PeekEncoding(const ColumnType &type, uint64_t rows, const ByteBuffer &body);

} // namespace vtx
