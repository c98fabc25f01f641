// The definitions behind fixed_width.hpp, included only by the fixed_width_*.cpp files that
// instantiate them.
#pragma once
#include "alp.hpp"
#include "bitpack.hpp"
#include "dictionary_builder.hpp"
#include "../domain.hpp"
#include "encoding_internal.hpp"
#include "fixed_width.hpp"
#include "../stats/narrow_distinct.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace vtx {
namespace encoding_internal {

//! The most values a dictionary of `n` codes of `width`-byte values can hold and still be stored
//! in fewer than `bound` bytes (the layout EncodeFixed writes: 10 bytes of header, the values,
//! the codes bit-packed to the width of the largest code).
inline uint64_t DictionaryBound(uint64_t n, uint64_t width, uint64_t bound) {
	uint64_t most = 0;
	for (uint8_t bw = 0; bw <= 32; bw++) {
		const uint64_t fixed = 10 + PackedWords(n, bw) * 8;
		if (fixed >= bound) {
			break; // wider codes only cost more
		}
		const uint64_t fits = (bound - fixed - 1) / width;
		most = std::max(most, std::min(fits, uint64_t(1) << bw)); // codes below 2^bw
	}
	return most;
}

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

//! The number of runs of equal values.
template <class U>
uint64_t Runs(const U *vals, uint64_t n) {
	uint64_t runs = n ? 1 : 0;
	for (uint64_t i = 1; i < n; i++) {
		runs += vals[i] != vals[i - 1];
	}
	return runs;
}

//! Runs(), and the smallest and largest of the values with `sign` flipped (the frame's ends).
template <class U>
uint64_t RunsAndRange(const U *vals, uint64_t n, uint64_t sign, uint64_t &omin, uint64_t &omax) {
	uint64_t runs = n ? 1 : 0, lo = ~uint64_t(0), hi = 0;
	if (n) {
		lo = hi = static_cast<uint64_t>(vals[0]) ^ sign;
	}
	for (uint64_t i = 1; i < n; i++) {
		runs += vals[i] != vals[i - 1];
		const uint64_t o = static_cast<uint64_t>(vals[i]) ^ sign;
		lo = o < lo ? o : lo;
		hi = o > hi ? o : hi;
	}
	omin = lo;
	omax = hi;
	return runs;
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
	case Encoding::PLAIN:
		out.Bytes(vals, plain_size);
		break;
	case Encoding::FOR_BITPACK: {
		out.U64(omin);
		WritePackedValues(out, n, for_bw, [&](uint64_t i) { return (static_cast<uint64_t>(vals[i]) ^ sign) - omin; });
		break;
	}
	case Encoding::RLE: {
		std::vector<uint32_t> ends;
		std::vector<U> run_values;
		for (uint64_t i = 0; i < n; i++) {
			if (i + 1 == n || vals[i + 1] != vals[i]) {
				run_values.push_back(vals[i]);
				ends.push_back(static_cast<uint32_t>(i + 1));
			}
		}
		out.Var(run_values.size());
		out.Bytes(run_values.data(), run_values.size() * sizeof(U));
		out.Bytes(ends.data(), ends.size() * 4);
		break;
	}
	case Encoding::DICTIONARY:
		out.Var(dict.values.size());
		out.Bytes(dict.values.data(), dict.values.size() * sizeof(U));
		WritePacked(out, codes, BitWidth(dict.values.size() - 1));
		break;
	default:
		break;
	}
	return best;
}

// Whether `count` values, a superset of those an encoding can produce, all lie in the type's
// domain. When not, nothing is decided: the decoded rows are then checked one by one (a
// dictionary entry no row uses, or a frame wider than its values, is no error).
template <class U>
bool Within(const ColumnType &type, const U *values, uint64_t count) {
	return ValuesInDomain(type, reinterpret_cast<const uint8_t *>(values), count);
}

//! The sign flip that maps a type's order onto unsigned order (frame-of-reference values).
template <class U>
uint64_t FrameSign(const ColumnType &type) {
	return type.Kind() == PhysicalKind::SIGNED ? uint64_t(1) << ((sizeof(U) * 8 - 1) & 63) : 0;
}

// Every value of a frame is ref + d. Where ref + (largest d) does not wrap in U, the values lie
// between value(0) and value(largest d) in the type's order (the sign flip keeps it), and every
// restricted domain but TIME WITH TIME ZONE's is one interval in that order: the two ends decide it.
template <class U>
bool FrameWithin(const ColumnType &type, uint64_t ref, uint64_t sign, uint64_t largest) {
	const uint64_t top = sizeof(U) >= 8 ? ~uint64_t(0) : (uint64_t(1) << ((sizeof(U) * 8) & 63)) - 1;
	if (ref > top || largest > top - ref) {
		return false;
	}
	const U ends[2] = {static_cast<U>(ref ^ sign), static_cast<U>((ref + largest) ^ sign)};
	return Within(type, ends, 2);
}

//! Rows [b, e) of dictionary-coded values (b a multiple of 64) into dst[0, e - b), in blocks: the
//! codes unpacked alone and checked, then looked up.
template <class U>
void DictionaryRows(const uint8_t *words, uint8_t bw, const uint8_t *dict, uint64_t d, uint64_t b, uint64_t e,
                    U *dst) {
	uint32_t codes[kCodeBlock];
	for (uint64_t at = b; at < e; at += kCodeBlock) {
		const uint64_t m = std::min(kCodeBlock, e - at);
		DictionaryCodes(words, bw, d, at, m, codes);
		U *out = dst + (at - b);
		for (uint64_t i = 0; i < m; i++) {
			out[i] = LoadValue<U>(dict + uint64_t(codes[i]) * sizeof(U));
		}
	}
}

//! A frame's header and packed deltas (every row's words), as DecodeFixed and DeferFixed read them.
template <class U>
DeferredValues ReadFrame(const ColumnType &type, uint64_t n, ByteReader &r) {
	if (type.Kind() != PhysicalKind::SIGNED && type.Kind() != PhysicalKind::UNSIGNED) {
		throw FormatError("frame-of-reference encoding used for a " + type.ToString() + " column");
	}
	DeferredValues f;
	f.encoding = static_cast<uint8_t>(Encoding::FOR_BITPACK);
	f.ref = r.U64();
	f.words = ReadPacked(r, n, sizeof(U) * 8, f.bw);
	return f;
}

//! A dictionary's values and packed codes.
template <class U>
DeferredValues ReadDictionary(uint64_t n, ByteReader &r) {
	DeferredValues f;
	f.encoding = static_cast<uint8_t>(Encoding::DICTIONARY);
	f.size = r.Count(sizeof(U));
	if (f.size == 0 && n > 0) {
		throw FormatError("empty dictionary");
	}
	f.entries = r.Take(f.size * sizeof(U));
	f.words = ReadPacked(r, n, 32, f.bw);
	return f;
}

//! The end of run k of run-length values left packed (ReadRuns checks them).
inline uint64_t RunEnd(const DeferredValues &f, uint64_t k) {
	return LoadValue<uint32_t>(f.words + k * 4);
}

//! Run-length values: the runs' values and their ends, checked to cover the n rows in order.
template <class U>
DeferredValues ReadRuns(uint64_t n, ByteReader &r) {
	DeferredValues f;
	f.encoding = static_cast<uint8_t>(Encoding::RLE);
	f.size = r.Count(sizeof(U) + 4);
	f.entries = r.Take(f.size * sizeof(U));
	f.words = r.Take(f.size * 4);
	uint64_t pos = 0;
	for (uint64_t k = 0; k < f.size; k++) {
		const uint64_t end = RunEnd(f, k);
		if (end <= pos || end > n) {
			throw FormatError("run-length ends are not increasing within the zone");
		}
		pos = end;
	}
	if (pos != n) {
		throw FormatError("run-length runs cover " + std::to_string(pos) + " of " + std::to_string(n) + " rows");
	}
	return f;
}

//! The largest delta a frame's bit width allows.
inline uint64_t WidestDelta(uint8_t bw) {
	return bw >= 64 ? ~uint64_t(0) : (uint64_t(1) << bw) - 1;
}

//! The run that holds `row` (< the chunk's rows): the first whose end lies past it.
inline uint64_t RunOf(const DeferredValues &f, uint64_t row) {
	uint64_t lo = 0, hi = f.size;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo) / 2;
		if (RunEnd(f, mid) > row) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	return lo;
}

//! Rows [b, e) of run-length values into dst[0, e - b).
template <class U>
void RunRows(const DeferredValues &f, uint64_t b, uint64_t e, U *dst) {
	// A run ending kSpan rows or more before e is written kSpan values a step, past its end (the
	// runs after it write over the excess): runs are mostly short, and a loop per value would end
	// each with a mispredicted branch.
	constexpr uint64_t kSpan = 16;
	for (uint64_t k = RunOf(f, b), pos = b; pos < e; k++) {
		const uint64_t end = std::min(RunEnd(f, k), e);
		const U v = LoadValue<U>(f.entries + k * sizeof(U));
		if (end + kSpan <= e) {
			U *out = dst + (pos - b);
			U *const stop = dst + (end - b);
			do {
				for (uint64_t j = 0; j < kSpan; j++) {
					out[j] = v;
				}
				out += kSpan;
			} while (out < stop);
		} else {
			for (uint64_t p = pos; p < end; p++) {
				dst[p - b] = v;
			}
		}
		pos = end;
	}
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
		const uint64_t ref = f.ref, sign = FrameSign<U>(type);
		UnpackTo<sizeof(U) * 8>(f.words + b / 64 * f.bw * 8, e - b, f.bw, dst,
		                        [ref, sign](uint64_t x) { return static_cast<U>((ref + x) ^ sign); });
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
			// The rows ascend: one search for the first, then forward through the runs.
			for (uint64_t i = 0, k = n ? RunOf(f, base + rows[0]) : 0; i < n; i++) {
				while (RunEnd(f, k) <= base + rows[i]) {
					k++;
				}
				out[i] = LoadValue<U>(f.entries + k * sizeof(U));
			}
			return;
		}
		if (f.encoding == static_cast<uint8_t>(Encoding::DICTIONARY)) {
			for (uint64_t i = 0; i < n; i++) {
				const uint64_t code = PackedAt(f.words, base + rows[i], f.bw);
				if (code >= f.size) {
					throw FormatError("dictionary code out of range");
				}
				out[i] = LoadValue<U>(f.entries + code * sizeof(U));
			}
			return;
		}
		const uint64_t ref = f.ref, sign = FrameSign<U>(type);
		for (uint64_t i = 0; i < n; i++) {
			out[i] = static_cast<U>((ref + PackedAt(f.words, base + rows[i], f.bw)) ^ sign);
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
