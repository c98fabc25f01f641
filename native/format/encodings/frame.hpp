// Frame of reference (encoding 2, FOR_BITPACK): integers stored as their distance from the
// chunk's smallest value, bit-packed to the width of the largest distance. Its parameters bound
// every value, which settles most domain checks without looking at the values.
#pragma once
#include "../domain.hpp"
#include "encoding.hpp"
#include "encoding_internal.hpp"

#include <algorithm>
#include <cstring>

namespace vtx {
namespace encoding_internal {

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

//! Rows [b, e) (b a multiple of 64) of a frame into dst[0, e - b).
template <class U>
void FrameRows(const ColumnType &type, const DeferredValues &f, uint64_t b, uint64_t e, U *dst) {
	const uint64_t ref = f.ref, sign = FrameSign<U>(type);
	UnpackTo<sizeof(U) * 8>(f.words + b / 64 * f.bw * 8, e - b, f.bw, dst,
	                        [ref, sign](uint64_t x) { return static_cast<U>((ref + x) ^ sign); });
}

//! The frame's values at rows base + rows[i], ascending, into out[i].
template <class U>
void FrameRowsAt(const ColumnType &type, const DeferredValues &f, uint64_t base, const uint32_t *rows, uint64_t n,
                 U *out) {
	const uint64_t ref = f.ref, sign = FrameSign<U>(type);
	for (uint64_t i = 0; i < n; i++) {
		out[i] = static_cast<U>((ref + PackedAt(f.words, base + rows[i], f.bw)) ^ sign);
	}
}

} // namespace encoding_internal
} // namespace vtx
