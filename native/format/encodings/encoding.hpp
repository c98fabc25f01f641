// Lightweight encodings of a column chunk, chosen per chunk by size:
// plain, constant, frame-of-reference + bit-packing, run-length, dictionary.
#pragma once
#include "../bytes.hpp"
#include "../column.hpp"
#include "value_hint.hpp"

namespace vtx {

enum class Encoding : uint8_t { PLAIN = 0, CONSTANT = 1, FOR_BITPACK = 2, RLE = 3, DICTIONARY = 4, ALP = 5 };

const char *EncodingName(Encoding e);

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
//! For a chunk whose values were left in their dictionary or runs (deferred.encoding DICTIONARY or
//! RLE): per row of [begin, end), the index of its value among deferred.entries (its code, or its
//! run), into out[0, end - begin). A consumer that looks values up once per entry reads them so.
void DecodeEntryIndexes(const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint32_t *out);
void DecodeChunk(const ColumnType &type, uint64_t rows, std::vector<uint8_t> &&body, DecodedColumn &out);

//! The value encoding recorded in a segment body (for inspection), without decoding.
Encoding PeekEncoding(const ColumnType &type, uint64_t rows, const ByteBuffer &body);

} // namespace vtx
