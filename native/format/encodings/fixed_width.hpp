// The encoder and decoder of fixed-width values (1, 2, 4, 8 or 16 bytes). Their unrolled
// bit-unpacking kernels are most of the format's compile time, so each width is instantiated in a
// file of its own (fixed_width_*.cpp) and the files compile in parallel.
#pragma once
#include "bitpack.hpp"
#include "../bytes.hpp"
#include "../column.hpp"
#include "encoding.hpp"

namespace vtx {
namespace encoding_internal {

//! Codes of rows [b, b + m) (b a multiple of 64, m <= kCodeBlock) into codes[0, m), each checked
//! below d with a max the compiler vectorizes.
constexpr uint64_t kCodeBlock = 1024; // a multiple of 64 rows: each block starts on a word
inline void DictionaryCodes(const uint8_t *words, uint8_t bw, uint64_t d, uint64_t b, uint64_t m, uint32_t *codes) {
	UnpackTo<32>(words + b / 64 * bw * 8, m, bw, codes, [](uint64_t code) { return static_cast<uint32_t>(code); });
	uint32_t largest = 0;
	for (uint64_t i = 0; i < m; i++) {
		largest = codes[i] > largest ? codes[i] : largest;
	}
	if (m && largest >= d) {
		throw FormatError("dictionary code out of range");
	}
}

template <class U>
Encoding EncodeFixed(const ColumnInput &in, ByteWriter &out, ValueHint *hint);

// Decodes fixed-width values into `out`. Returns true when the encoding's own parameters already
// prove every decoded value to lie in the type's domain (a constant, the run values, the
// dictionary, or the two ends of a frame-of-reference range, checked once each), so that the
// caller need not check the values row by row.
template <class U>
bool DecodeFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                 const RowRange *range);

// Leaves frame-of-reference, dictionary and run-length values packed (out.deferred, `r` past
// them) where the encoding's parameters prove them in the type's domain; false, with `r`
// untouched, otherwise.
template <class U>
bool DeferFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out);

// Rows [b, e) (b a multiple of 64) of values DeferFixed left packed, into out[0, (e - b) * sizeof(U)).
template <class U>
void DecodeDeferred(const ColumnType &type, const DecodedColumn &chunk, uint64_t b, uint64_t e, uint8_t *out);

// Rows base + rows[0], ..., base + rows[n - 1] of values DeferFixed left packed, into
// out[0, n * sizeof(U)), each read alone.
template <class U>
void DecodeDeferredAt(const ColumnType &type, const DecodedColumn &chunk, uint64_t base, const uint32_t *rows,
                      uint64_t n, uint8_t *out);

} // namespace encoding_internal
} // namespace vtx
