// Plain (encoding 0): the values as they are, which reach DuckDB without a copy. The baseline of
// the choice: anything else costs decoding, so it must save at least a tenth of the plain size to
// be chosen (bit-packing 62 of 64 bits does not pay). Strings: a string block, written where
// neither a constant nor a dictionary applies.
#pragma once
#include "encoding_internal.hpp"

#include <algorithm>
#include <cstring>

namespace vtx {
namespace encoding_internal {

struct PlainCodec : CodecDefaults {
	template <class U>
	struct Choice {
		Offer Make(const FixedValues<U> &v, uint64_t) {
			const uint64_t size = v.n * sizeof(U);
			return Offer {size - size / 10};
		}
		void Write(const FixedValues<U> &v, ByteWriter &out) {
			out.Bytes(v.vals, v.n * sizeof(U));
		}
	};

	template <class U>
	static bool Decode(const ColumnType &, uint64_t n, ByteReader &r, DecodedColumn &out, const RowRange *) {
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

	//! Strings: what no other encoding took (a string block).
	template <class AT>
	struct StringChoice {
		Offer Make(const StringValues<AT> &, uint64_t) {
			return Offer {kNoOffer - 1};
		}
		void Write(const StringValues<AT> &v, ByteWriter &out) {
			WriteStrings(out, v.n, v.at, v.range);
		}
	};
	static bool DecodeStrings(uint64_t n, ByteReader &r, bool utf8, DecodedColumn &out) {
		ReadStrings(r, n, utf8, out.strings);
		return true;
	}
};

} // namespace encoding_internal
} // namespace vtx
