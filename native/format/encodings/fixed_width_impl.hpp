// The definitions behind fixed_width.hpp, included only by the fixed_width_*.cpp files that
// instantiate them: the choice among the encodings of fixed-width values and the dispatch to each
// encoding's codec, both from the rows of VTX_ENCODINGS (encoding.hpp). One switch a segment (a
// vector for deferred rows); the loops over rows are the codecs' own, instantiated per type.
#pragma once
#include "codecs.hpp"
#include "fixed_width.hpp"
#include "../stats/narrow_distinct.hpp"

#include <algorithm>
#include <cstring>

namespace vtx {
namespace encoding_internal {

//! vals[i] = row i's value, or the last valid value before it (the first valid value for the
//! rows before that). Pointers are held in locals: the stores could alias the input's fields.
template <class U>
void FillNullRows(const uint8_t *valid, const uint8_t *fixed, uint64_t n, U *vals) {
	if (!valid) {
		if (n) {
			std::memcpy(vals, fixed, n * sizeof(U));
		}
		return;
	}
	uint64_t first = 0;
	while (first < n && !valid[first]) {
		first++;
	}
	const U lead = first < n ? LoadValue<U>(fixed + first * sizeof(U)) : U(0);
	for (uint64_t i = 0; i < first; i++) {
		vals[i] = lead;
	}
	// Copied whole, then each NULL row after the first valid one takes the row before it: most
	// rows are valid, and the copy is one memcpy instead of a load and a store per row.
	if (first < n) {
		std::memcpy(vals + first, fixed + first * sizeof(U), (n - first) * sizeof(U));
	}
	for (uint64_t i = first + 1; i < n; i++) {
		if (!valid[i]) {
			vals[i] = vals[i - 1];
		}
	}
}

template <class U>
Encoding EncodeFixed(const ColumnInput &in, ByteWriter &out, ValueHint *hint) {
	const uint64_t n = in.count;
	const auto kind = in.type.Kind();
	// Null rows repeat the previous valid value so they cost nothing in any encoding.
	// Read in place where there is no NULL to fill.
	auto &filled = Scratch<U>(0);
	const U *vals;
	if (!in.valid && reinterpret_cast<uintptr_t>(in.fixed) % alignof(U) == 0) {
		vals = reinterpret_cast<const U *>(in.fixed);
	} else {
		filled.resize(n);
		FillNullRows<U>(in.valid, in.fixed, n, filled.data());
		vals = filled.data();
	}
	FixedValues<U> v {vals, n, kind, false, 0, 0, ~uint64_t(0), 0, 64, hint};
	v.integral = sizeof(U) <= 8 && (kind == PhysicalKind::SIGNED || kind == PhysicalKind::UNSIGNED);
	v.sign = kind == PhysicalKind::SIGNED ? uint64_t(1) << ((sizeof(U) * 8 - 1) & 63) : 0;
	v.runs = v.integral ? RunsAndRange<U>(vals, n, v.sign, v.omin, v.omax) : Runs<U>(vals, n);
	if (v.integral) {
		v.range_bw = BitWidth(v.omax - v.omin);
	}
	const Chosen chosen = Choose<FixedCandidates<U>::template Of>(v, out);
	// A narrow frame's distinct values from a bitmap: the statistics keep them where they are few,
	// and the writer hashes them for the zone's sketch however many they are (not every row).
	if (!chosen.at_once && hint && v.integral && hint->distinct != ValueHint::Distinct::ALL &&
	    v.omax - v.omin < NarrowFrameLimit(n)) {
		auto &distinct = Scratch<U>(3);
		NarrowDistinct<U>(vals, n, v.sign, v.omin, v.omax - v.omin, distinct);
		HintFromDictionary(true, distinct, RawValue<U>, hint);
		hint->fixed_values.resize(distinct.size() * sizeof(U));
		std::memcpy(hint->fixed_values.data(), distinct.data(), distinct.size() * sizeof(U));
	}
	return chosen.encoding;
}

template <class U>
bool DecodeFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                 const RowRange *range) {
	switch (enc) {
#define VTX_ENCODING_DECODE(identifier, id, name, version, codec)                                                      \
	case Encoding::identifier: return codec::template Decode<U>(type, n, r, out, range);
		VTX_ENCODINGS(VTX_ENCODING_DECODE)
#undef VTX_ENCODING_DECODE
	}
	throw FormatError("unknown encoding " + std::to_string(static_cast<int>(enc)));
}

//! Deferral, and the rows of deferred values, for the widths that defer: booleans unpack eight a
//! step already, and 16-byte values have no frames.
template <class U>
constexpr bool kDefers = sizeof(U) >= 2 && sizeof(U) <= 8;

template <class U>
bool DeferFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out) {
	if constexpr (!kDefers<U>) {
		return false;
	} else {
		// Deferred only where the encoding's parameters prove every value in the domain; elsewhere
		// DecodeFixed decodes and checks row by row.
		ByteReader at = r;
		DeferredValues f;
		bool deferred = false;
		switch (enc) {
#define VTX_ENCODING_DEFER(identifier, id, name, version, codec)                                                       \
	case Encoding::identifier: deferred = codec::template Defer<U>(type, n, at, f); break;
			VTX_ENCODINGS(VTX_ENCODING_DEFER)
#undef VTX_ENCODING_DEFER
		}
		if (!deferred) {
			return false;
		}
		f.encoding = static_cast<uint8_t>(enc);
		out.deferred = f;
		out.decoded_begin = 0;
		out.decoded_end = 0;
		r = at;
		return true;
	}
}

template <class U>
void DecodeDeferred(const ColumnType &type, const DecodedColumn &chunk, uint64_t b, uint64_t e, uint8_t *out) {
	if constexpr (kDefers<U>) {
		const DeferredValues &f = chunk.deferred;
		U *dst = reinterpret_cast<U *>(out);
		switch (static_cast<Encoding>(f.encoding)) {
#define VTX_ENCODING_ROWS(identifier, id, name, version, codec)                                                        \
	case Encoding::identifier: return codec::template Rows<U>(type, f, b, e, dst);
			VTX_ENCODINGS(VTX_ENCODING_ROWS)
#undef VTX_ENCODING_ROWS
		}
	}
}

template <class U>
void DecodeDeferredAt(const ColumnType &type, const DecodedColumn &chunk, uint64_t base, const uint32_t *rows,
                      uint64_t n, uint8_t *out_bytes) {
	if constexpr (kDefers<U>) {
		const DeferredValues &f = chunk.deferred;
		U *out = reinterpret_cast<U *>(out_bytes);
		switch (static_cast<Encoding>(f.encoding)) {
#define VTX_ENCODING_ROWS_AT(identifier, id, name, version, codec)                                                     \
	case Encoding::identifier: return codec::template RowsAt<U>(type, f, base, rows, n, out);
			VTX_ENCODINGS(VTX_ENCODING_ROWS_AT)
#undef VTX_ENCODING_ROWS_AT
		}
	}
}

} // namespace encoding_internal
} // namespace vtx

//! The encoder and decoder for values of storage type U, in the fixed_width_*.cpp file of its width.
#define VTX_INSTANTIATE_FIXED_WIDTH(U)                                                                                \
	template vtx::Encoding vtx::encoding_internal::EncodeFixed<U>(const vtx::ColumnInput &, vtx::ByteWriter &,        \
	                                                               vtx::ValueHint *);                              \
	template bool vtx::encoding_internal::DecodeFixed<U>(const vtx::ColumnType &, uint64_t, vtx::ByteReader &,        \
	                                                     vtx::Encoding, vtx::DecodedColumn &, const vtx::RowRange *);      \
	template bool vtx::encoding_internal::DeferFixed<U>(const vtx::ColumnType &, uint64_t, vtx::ByteReader &,         \
	                                                    vtx::Encoding, vtx::DecodedColumn &);                           \
	template void vtx::encoding_internal::DecodeDeferred<U>(const vtx::ColumnType &, const vtx::DecodedColumn &,      \
	                                                        uint64_t, uint64_t, uint8_t *);                         \
	template void vtx::encoding_internal::DecodeDeferredAt<U>(const vtx::ColumnType &, const vtx::DecodedColumn &,    \
	                                                          uint64_t, const uint32_t *, uint64_t, uint8_t *)
