// Frame of reference (encoding 2, FOR_BITPACK): integers stored as their distance from the
// chunk's smallest value, bit-packed to the width of the largest distance. Its parameters bound
// every value, which settles most domain checks without looking at the values. Integers of at
// most 8 bytes only: 16-byte values would instantiate 129 unrolled widths for an encoding the
// writer never uses there.
#pragma once
#include "../domain.hpp"
#include "encoding.hpp"
#include "encoding_internal.hpp"

#include <algorithm>
#include <cstring>

namespace vtx {
namespace encoding_internal {

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

//! The largest delta a frame's bit width allows.
inline uint64_t WidestDelta(uint8_t bw) {
	return bw >= 64 ? ~uint64_t(0) : (uint64_t(1) << bw) - 1;
}

//! A frame's payload: its reference (the smallest value, sign flipped) and each value's distance
//! from it in `bw` bits.
template <class U>
void WriteFrame(ByteWriter &out, const U *vals, uint64_t n, uint64_t sign, uint64_t ref, uint8_t bw) {
	out.U64(ref);
	WritePackedValues(out, n, bw, [&](uint64_t i) { return (static_cast<uint64_t>(vals[i]) ^ sign) - ref; });
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

struct FrameCodec : CodecDefaults {
	template <class U>
	struct Choice {
		Offer Make(const FixedValues<U> &v, uint64_t) {
			return v.integral ? Offer {9 + PackedWords(v.n, v.range_bw) * 8} : Offer {};
		}
		void Write(const FixedValues<U> &v, ByteWriter &out) {
			WriteFrame<U>(out, v.vals, v.n, v.sign, v.omin, v.range_bw);
		}
	};

	template <class U>
	static bool Decode(const ColumnType &type, uint64_t n, ByteReader &r, DecodedColumn &out, const RowRange *range) {
		if constexpr (sizeof(U) > 8) {
			throw FormatError("frame-of-reference encoding used for a " + type.ToString() + " column");
		} else {
			U *dst = DecodedRows<U>(out, n);
			uint64_t b, e;
			BlocksOf(range, n, out, b, e);
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
				Rows<U>(type, f, b, e, dst + b);
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

	//! Deferred only where the frame's ends prove every value in the domain, as Decode's fast
	//! path does.
	template <class U>
	static bool Defer(const ColumnType &type, uint64_t n, ByteReader &r, DeferredValues &f) {
		f = ReadFrame<U>(type, n, r);
		return !HasRestrictedDomain(type) ||
		       (type.id != TypeId::TIME_TZ && FrameWithin<U>(type, f.ref, FrameSign<U>(type), WidestDelta(f.bw)));
	}

	//! Rows [b, e) (b a multiple of 64) of a frame into dst[0, e - b).
	template <class U>
	static void Rows(const ColumnType &type, const DeferredValues &f, uint64_t b, uint64_t e, U *dst) {
		const uint64_t ref = f.ref, sign = FrameSign<U>(type);
		UnpackTo<sizeof(U) * 8>(f.words + b / 64 * f.bw * 8, e - b, f.bw, dst,
		                        [ref, sign](uint64_t x) { return static_cast<U>((ref + x) ^ sign); });
	}

	//! The frame's values at rows base + rows[i], ascending, into out[i].
	template <class U>
	static void RowsAt(const ColumnType &type, const DeferredValues &f, uint64_t base, const uint32_t *rows, uint64_t n,
	                   U *out) {
		const uint64_t ref = f.ref, sign = FrameSign<U>(type);
		for (uint64_t i = 0; i < n; i++) {
			out[i] = static_cast<U>((ref + PackedAt(f.words, base + rows[i], f.bw)) ^ sign);
		}
	}
};

} // namespace encoding_internal
} // namespace vtx
