// The definitions behind fixed_width.hpp, included only by the fixed_width_*.cpp files that
// instantiate them: the choice among the encodings of fixed-width values (one pass over the values
// sizes every candidate), and the dispatch to each encoding's own file (frame.hpp, runs.hpp,
// dictionary.hpp, alp.hpp) to write, read and decode it.
#pragma once
#include "alp.hpp"
#include "dictionary.hpp"
#include "dictionary_builder.hpp"
#include "fixed_width.hpp"
#include "frame.hpp"
#include "runs.hpp"
#include "../stats/narrow_distinct.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

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
	// Read in place where there is no NULL to fill (and no ALP, which takes a vector).
	auto &filled = Scratch<U>(0);
	const U *vals;
	if (!in.valid && kind != PhysicalKind::FLOAT && reinterpret_cast<uintptr_t>(in.fixed) % alignof(U) == 0) {
		vals = reinterpret_cast<const U *>(in.fixed);
	} else {
		filled.resize(n);
		FillNullRows<U>(in.valid, in.fixed, n, filled.data());
		vals = filled.data();
	}
	const bool can_for = sizeof(U) <= 8 && (kind == PhysicalKind::SIGNED || kind == PhysicalKind::UNSIGNED);
	const uint64_t sign = kind == PhysicalKind::SIGNED ? uint64_t(1) << ((sizeof(U) * 8 - 1) & 63) : 0;
	// Runs, and the frame's ends, in one pass: three passes over a segment's values were half of
	// this function's time.
	uint64_t omin = ~uint64_t(0), omax = 0;
	const uint64_t runs = can_for ? RunsAndRange<U>(vals, n, sign, omin, omax) : Runs<U>(vals, n);
	if (runs <= 1) {
		out.U8(static_cast<uint8_t>(Encoding::CONSTANT));
		U v = n ? vals[0] : U(0);
		out.Put(v);
		if (n) {
			HintFromDictionary(true, std::vector<U> {v}, RawValue<U>, hint);
		}
		return Encoding::CONSTANT;
	}
	const uint64_t plain_size = n * sizeof(U);
	// Plain reaches DuckDB without a copy; anything else costs decoding, so it must save
	// at least a tenth of the plain size to be chosen (bit-packing 62 of 64 bits does not pay).
	uint64_t best_size = plain_size - plain_size / 10;
	Encoding best = Encoding::PLAIN;

	uint8_t for_bw = 64;
	if (can_for) {
		for_bw = BitWidth(omax - omin);
		uint64_t size = 9 + PackedWords(n, for_bw) * 8;
		if (size < best_size) {
			best_size = size;
			best = Encoding::FOR_BITPACK;
		}
	}
	uint64_t rle_size = 10 + runs * (sizeof(U) + 4);
	if (rle_size < best_size) {
		best_size = rle_size;
		best = Encoding::RLE;
	}
	// ALP before the dictionary: where it halves the plain size, take it without paying for a
	// dictionary (whose hash table costs more to build than ALP to encode); otherwise it competes.
	ByteWriter alp;
	if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
		using T = std::conditional_t<sizeof(U) == 8, double, float>;
		if (kind == PhysicalKind::FLOAT && n >= 16) {
			auto plan = PlanAlp<T>(filled);
			const uint64_t step = std::max<uint64_t>(1, n / 256);
			// The sample's estimate decides whether the full encoding is worth trying.
			if (plan.size * step < best_size && EncodeAlp<T>(filled, plan.e, best_size, alp)) {
				if (alp.Size() <= plain_size / 2) {
					out.Bytes(alp.data.data(), alp.data.size());
					return Encoding::ALP;
				}
				best_size = alp.Size();
				best = Encoding::ALP;
			}
		}
	}
	// A dictionary only pays where values repeat; FOR already wins on narrow ranges. It is given
	// up as soon as it holds more values than could still beat the best size so far.
	const uint64_t limit = std::min<uint64_t>({kMaxDictionary, n / 4, DictionaryBound(n, sizeof(U), best_size)});
	const bool try_dict = n >= 64 && for_bw > 8;
	DictionaryBuilder<U> dict(try_dict ? limit : 0);
	auto &codes = Scratch<uint64_t>(1);
	codes.clear();
	const bool dictionary = try_dict && BuildDictionary<U>(n, [&](uint64_t i) { return vals[i]; }, dict, codes);
	if (try_dict) {
		HintFromDictionary(dictionary, dict.values, RawValue<U>, hint);
	}
	if (dictionary) {
		auto bw = BitWidth(dict.values.size() - 1);
		uint64_t size = 10 + dict.values.size() * sizeof(U) + PackedWords(n, bw) * 8;
		if (size < best_size) {
			best_size = size;
			best = Encoding::DICTIONARY;
		}
	}
	// A narrow frame's distinct values from a bitmap: the statistics keep them where they are few,
	// and the writer hashes them for the zone's sketch however many they are (not every row).
	if (hint && can_for && hint->distinct != ValueHint::Distinct::ALL && omax - omin < NarrowFrameLimit(n)) {
		auto &distinct = Scratch<U>(3);
		NarrowDistinct<U>(vals, n, sign, omin, omax - omin, distinct);
		HintFromDictionary(true, distinct, RawValue<U>, hint);
		hint->fixed_values.resize(distinct.size() * sizeof(U));
		std::memcpy(hint->fixed_values.data(), distinct.data(), distinct.size() * sizeof(U));
	}
	if (best == Encoding::ALP) {
		out.Bytes(alp.data.data(), alp.data.size());
		return Encoding::ALP;
	}
	out.U8(static_cast<uint8_t>(best));
	switch (best) {
	case Encoding::PLAIN: out.Bytes(vals, plain_size); break;
	case Encoding::FOR_BITPACK: WriteFrame<U>(out, vals, n, sign, omin, for_bw); break;
	case Encoding::RLE: WriteRuns<U>(out, vals, n); break;
	case Encoding::DICTIONARY: WriteDictionary<U>(out, dict.values, codes); break;
	default: break;
	}
	return best;
}

//! Rows [b, e) (b a multiple of 64) of a frame, a dictionary or runs into dst[0, e - b).
template <class U>
void PackedRows(const ColumnType &type, const DeferredValues &f, uint64_t b, uint64_t e, U *dst) {
	if (f.encoding == static_cast<uint8_t>(Encoding::RLE)) {
		RunRows<U>(f, b, e, dst);
		return;
	}
	if (f.encoding == static_cast<uint8_t>(Encoding::DICTIONARY)) {
		DictionaryRows<U>(f.words, f.bw, f.entries, f.size, b, e, dst);
		return;
	}
	if constexpr (sizeof(U) <= 8) { // 16-byte values have no frames (DecodeFixed)
		FrameRows<U>(type, f, b, e, dst);
	}
}

template <class U>
bool DecodeFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                 const RowRange *range) {
	if (enc == Encoding::PLAIN) {
		auto src = n ? r.Take(n * sizeof(U)) : nullptr;
		// Aligned values are used where they lie, in the chunk's own buffer (no copy at all).
		if (n && reinterpret_cast<uintptr_t>(src) % std::min<size_t>(sizeof(U), 8) == 0) {
			out.values = src;
		} else if (n) {
			out.fixed.resize(n * sizeof(U));
			std::memcpy(out.fixed.data(), src, n * sizeof(U));
		}
		return false;
	}
	out.fixed.resize(n * sizeof(U));
	U *dst = reinterpret_cast<U *>(out.fixed.data());
	// Block-decoding encodings decode the 64-row blocks a range touches, and no others.
	uint64_t b = 0, e = n;
	if (range && (enc == Encoding::FOR_BITPACK || enc == Encoding::ALP)) {
		e = std::min(range->end, n);
		b = std::min(range->begin, e) / 64 * 64;
		out.decoded_begin = b;
		out.decoded_end = e;
	}
	switch (enc) {
	case Encoding::CONSTANT: {
		auto v = LoadValue<U>(r.Take(sizeof(U)));
		for (uint64_t i = 0; i < n; i++) {
			dst[i] = v;
		}
		return Within(type, &v, 1);
	}
	case Encoding::FOR_BITPACK: {
		if constexpr (sizeof(U) > 8) {
			// Not instantiated for 16-byte values: 129 unrolled widths for an encoding the writer never uses there.
			throw FormatError("frame-of-reference encoding used for a " + type.ToString() + " column");
		} else {
			const auto f = ReadFrame<U>(type, n, r);
			const uint64_t ref = f.ref, sign = FrameSign<U>(type);
			const uint8_t bw = f.bw;
			const uint8_t *words = f.words + b / 64 * bw * 8;
			auto value = [ref, sign](uint64_t d) { return static_cast<U>((ref + d) ^ sign); };
			// The widest d the bit width allows is checked first (FrameWithin), which settles almost
			// every segment (a decimal's or a date's frame spans far less than its domain); only where
			// it does not is the largest d tracked while unpacking (one max per value), where checking
			// the values afterwards would take a second pass.
			const bool interval = HasRestrictedDomain(type) && type.id != TypeId::TIME_TZ;
			auto within = [&](uint64_t largest) { return FrameWithin<U>(type, ref, sign, largest); };
			if (sizeof(U) == 1 && bw == 1) {
				// Booleans (and 1-bit byte columns): eight rows per step.
				UnpackBitsToBytes(words, e - b, static_cast<uint8_t>(value(0)), static_cast<uint8_t>(value(1)),
				                  reinterpret_cast<uint8_t *>(dst + b));
				return !HasRestrictedDomain(type) || (interval && within(1));
			}
			if (!interval || within(WidestDelta(bw))) {
				PackedRows<U>(type, f, b, e, dst + b);
				return !HasRestrictedDomain(type) || interval;
			}
			uint64_t span = 0;
			UnpackTo<sizeof(U) * 8>(words, e - b, bw, dst + b, [&](uint64_t d) {
				span = d > span ? d : span;
				return value(d);
			});
			return within(span);
		}
	}
	case Encoding::RLE: {
		const auto f = ReadRuns<U>(n, r);
		RunRows<U>(f, 0, n, dst);
		return ValuesInDomain(type, f.entries, f.size);
	}
	case Encoding::DICTIONARY: {
		const auto f = ReadDictionary<U>(n, r);
		PackedRows<U>(type, f, 0, n, dst);
		return ValuesInDomain(type, f.entries, f.size);
	}
	case Encoding::ALP:
		if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
			if (type.Kind() == PhysicalKind::FLOAT) {
				DecodeAlp<std::conditional_t<sizeof(U) == 8, double, float>>(n, r, dst, b, e);
				return false; // floats: no restricted domain
			}
		}
		throw FormatError("ALP encoding used for a " + type.ToString() + " column");
	default:
		throw FormatError("unknown encoding " + std::to_string(static_cast<int>(enc)));
	}
	return false;
}

template <class U>
bool DeferFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out) {
	if constexpr (sizeof(U) == 1 || sizeof(U) > 8) {
		return false; // booleans unpack eight a step already; 16-byte values have no frames
	} else {
		// Deferred only where the encoding's parameters prove every value in the domain, as
		// DecodeFixed's fast paths do; elsewhere DecodeFixed decodes and checks row by row.
		ByteReader at = r;
		DeferredValues f;
		if (enc == Encoding::FOR_BITPACK) {
			f = ReadFrame<U>(type, n, at);
			if (HasRestrictedDomain(type) &&
			    (type.id == TypeId::TIME_TZ || !FrameWithin<U>(type, f.ref, FrameSign<U>(type), WidestDelta(f.bw)))) {
				return false;
			}
		} else if (enc == Encoding::DICTIONARY) {
			f = ReadDictionary<U>(n, at);
			if (!ValuesInDomain(type, f.entries, f.size)) {
				return false;
			}
		} else if (enc == Encoding::RLE) {
			f = ReadRuns<U>(n, at);
			if (!ValuesInDomain(type, f.entries, f.size)) {
				return false;
			}
		} else {
			return false;
		}
		out.deferred = f;
		out.decoded_begin = 0;
		out.decoded_end = 0;
		r = at;
		return true;
	}
}

template <class U>
void DecodeDeferred(const ColumnType &type, const DecodedColumn &chunk, uint64_t b, uint64_t e, uint8_t *out) {
	if constexpr (sizeof(U) <= 8) {
		PackedRows<U>(type, chunk.deferred, b, e, reinterpret_cast<U *>(out));
	}
}

template <class U>
void DecodeDeferredAt(const ColumnType &type, const DecodedColumn &chunk, uint64_t base, const uint32_t *rows,
                      uint64_t n, uint8_t *out_bytes) {
	if constexpr (sizeof(U) <= 8) {
		const DeferredValues &f = chunk.deferred;
		U *out = reinterpret_cast<U *>(out_bytes);
		if (f.encoding == static_cast<uint8_t>(Encoding::RLE)) {
			RunRowsAt<U>(f, base, rows, n, out);
		} else if (f.encoding == static_cast<uint8_t>(Encoding::DICTIONARY)) {
			DictionaryRowsAt<U>(f, base, rows, n, out);
		} else {
			FrameRowsAt<U>(type, f, base, rows, n, out);
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
