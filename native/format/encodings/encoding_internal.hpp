// What the encoders and decoders of encoding.cpp and of each encoding's own file share, and what
// an encoding provides to the choice and the dispatch (codecs.hpp, fixed_width_impl.hpp, encoding.cpp).
#pragma once
#include "bitpack.hpp"
#include "../bytes.hpp"
#include "../column.hpp"
#include "../domain.hpp"
#include "../scratch.hpp"
#include "../stats/stats.hpp"
#include "value_hint.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vtx {
namespace encoding_internal {

// Dictionaries larger than this are not worth their hash-table cost at write time.
constexpr uint64_t kMaxDictionary = 1 << 16;

// Per-thread scratch space, reused from chunk to chunk: fresh multi-megabyte buffers
// would cost a page fault per page on every chunk. Released when no query needs it any more
// (scratch.hpp); used only inside EncodeChunk's lease.
template <class T>
inline std::vector<T> &Scratch(int slot) {
	thread_local ScratchSlot<std::vector<T>> buffers[4];
	return buffers[slot].value;
}

void WritePacked(ByteWriter &out, const std::vector<uint64_t> &values, uint8_t bw);

//! The bit width, then value(0), ..., value(n - 1) packed to it (PackInto).
template <class VALUE>
void WritePackedValues(ByteWriter &out, uint64_t n, uint8_t bw, VALUE &&value) {
	out.U8(bw);
	const size_t at = out.data.size();
	out.data.resize(at + PackedWords(n, bw) * 8);
	PackInto(n, bw, value, out.data.data() + at);
}

//! Where the packed words of rows from b on start, in the reader's buffer (b a multiple of 64, so
//! that they start a word: 64 values of bw bits are exactly bw words). The whole packed block is
//! taken from the reader, so every word of the n rows is in bounds.
const uint8_t *ReadPackedRows(ByteReader &r, uint64_t n, uint8_t max_bw, uint8_t &bw, uint64_t b);
const uint8_t *ReadPacked(ByteReader &r, uint64_t n, uint8_t max_bw, uint8_t &bw);

template <class U>
inline U LoadValue(const uint8_t *p) {
	U v;
	std::memcpy(&v, p, sizeof(U));
	return v;
}

//! The hint (ValueHint) of a dictionary built over values that are all valid values of the
//! chunk and include every one of them: many where it holds more than the statistics keep
//! (completed or not), else all of them where it was completed. Only those few are copied.
template <class KEY, class RAW>
void HintFromDictionary(bool complete, const std::vector<KEY> &values, RAW &&raw, ValueHint *hint) {
	if (!hint) {
		return;
	}
	if (values.size() > kMaxDistinctValues) {
		hint->distinct = ValueHint::Distinct::MANY;
	} else if (complete) {
		hint->distinct = ValueHint::Distinct::ALL;
		hint->values.clear();
		for (auto &v : values) {
			hint->values.push_back(raw(v));
		}
	}
}

template <class U>
std::string RawValue(const U &v) {
	return std::string(reinterpret_cast<const char *>(&v), sizeof(U));
}

// Whether `count` values, a superset of those an encoding can produce, all lie in the type's
// domain. When not, nothing is decided: the decoded rows are then checked one by one (a
// dictionary entry no row uses, or a frame wider than its values, is no error).
template <class U>
bool Within(const ColumnType &type, const U *values, uint64_t count) {
	return ValuesInDomain(type, reinterpret_cast<const uint8_t *>(values), count);
}

// ---- what an encoding provides ----------------------------------------------------------
//
// Each encoding is a struct, named in its row of VTX_ENCODINGS (encoding.hpp), that inherits
// CodecDefaults and has, for fixed-width values,
//   template <class U> struct Choice {                      // a candidate of Choose (codecs.hpp)
//     Offer Make(const FixedValues<U> &v, uint64_t best);   // its size, or no offer
//     void Write(const FixedValues<U> &v, ByteWriter &out); // its payload, after the id byte
//   };
//   template <class U> static bool Decode(const ColumnType &, uint64_t n, ByteReader &,
//                                         DecodedColumn &out, const RowRange *range);
// and, where they differ from CodecDefaults': Defer, Rows and RowsAt, where its values may stay
// packed until a consumer asks for rows (DecodedColumn::deferred; EntryCodec has Defer and Decode
// for encodings of entries); StringChoice and DecodeStrings, where it encodes strings. Everything
// is templated on the value type and dispatched once per segment, never per row.

//! What the choice knows of a chunk's values before it asks the candidates: one pass over them
//! (runs and the frame's ends together, as three passes were half of the choice's time).
template <class U>
struct FixedValues {
	const U *vals;           //! every row's value, a NULL row holding the valid value before it
	uint64_t n;              //! the rows
	PhysicalKind kind;       //! the type's physical kind
	bool integral;           //! an integer of at most 8 bytes: a frame of reference applies
	uint64_t sign;           //! the sign flip that maps the values' order onto unsigned order
	uint64_t runs;           //! runs of equal values
	uint64_t omin, omax;     //! integral: the smallest and largest value, sign flipped
	uint8_t range_bw;        //! integral: the bit width of omax - omin; else 64
	ValueHint *hint;         //! what the encoding learns of the distinct values, or null
};

constexpr uint64_t kNoOffer = ~uint64_t(0);

//! A candidate's size, as the choice compares them (the smallest wins, the first of equals), and
//! whether it is taken at once, the candidates after it not even tried.
struct Offer {
	uint64_t size = kNoOffer;
	bool at_once = false;
};

//! Where the values of a non-plain encoding are decoded to: out.fixed, n values.
template <class U>
U *DecodedRows(DecodedColumn &out, uint64_t n) {
	out.fixed.resize(n * sizeof(U));
	return reinterpret_cast<U *>(out.fixed.data());
}

//! The rows [b, e) an encoding that decodes 64-row blocks decodes: the blocks `range` touches, or
//! every row. Recorded in `out` (decoded_begin, decoded_end).
inline void BlocksOf(const RowRange *range, uint64_t n, DecodedColumn &out, uint64_t &b, uint64_t &e) {
	b = 0;
	e = n;
	if (range) {
		e = std::min(range->end, n);
		b = std::min(range->begin, e) / 64 * 64;
		out.decoded_begin = b;
		out.decoded_end = e;
	}
}

//! What the string choice knows: at(i) is row i's value (a NULL row's: the valid value before it,
//! "" before the first), and `range`, where set, takes every value written (the strings' bounds).
template <class AT>
struct StringValues {
	const AT &at;
	uint64_t n;
	const ColumnInput &in;
	ValueHint *hint;
	StringRange *range;
};

//! What an encoding has unless it says otherwise: its values are always decoded (none deferred, so
//! Rows and RowsAt are never reached), and it does not encode strings.
struct CodecDefaults {
	template <class U>
	static bool Defer(const ColumnType &, uint64_t, ByteReader &, DeferredValues &) {
		return false;
	}
	template <class U>
	static void Rows(const ColumnType &, const DeferredValues &, uint64_t, uint64_t, U *) {
		throw std::logic_error("vortex: rows of an encoding that is never deferred");
	}
	template <class U>
	static void RowsAt(const ColumnType &, const DeferredValues &, uint64_t, const uint32_t *, uint64_t, U *) {
		throw std::logic_error("vortex: rows of an encoding that is never deferred");
	}

	//! Its values are not entries that rows pick (EntryCodec's are): no EntryIndexes.
	static constexpr bool kEntries = false;
	static void EntryIndexes(const DeferredValues &, uint64_t, uint64_t, uint32_t *) {
		throw std::logic_error("vortex: entry indexes of an encoding without entries");
	}

	template <class AT>
	struct StringChoice {
		Offer Make(const StringValues<AT> &, uint64_t) {
			return Offer {};
		}
		void Write(const StringValues<AT> &, ByteWriter &) {
		}
	};
	//! Decodes n strings into `out`; false where the encoding has none (the segment is refused).
	static bool DecodeStrings(uint64_t, ByteReader &, bool, DecodedColumn &) {
		return false;
	}
};

//! An encoding whose every value is one of its entries (DeferredValues::entries, `size` of them),
//! which its rows pick: run-length and dictionary. CODEC has Read (its header and payload, as
//! DeferredValues), Rows, and EntryIndexes (per row, the index of its entry), which consumers that
//! look values up once per entry read (DecodeEntryIndexes). Its values stay packed where every entry
//! is in the type's domain, and decoding them all is reading them so, then every row.
template <class CODEC>
struct EntryCodec : CodecDefaults {
	static constexpr bool kEntries = true;

	template <class U>
	static bool Defer(const ColumnType &type, uint64_t n, ByteReader &r, DeferredValues &f) {
		f = CODEC::template Read<U>(n, r);
		return ValuesInDomain(type, f.entries, f.size);
	}
	template <class U>
	static bool Decode(const ColumnType &type, uint64_t n, ByteReader &r, DecodedColumn &out, const RowRange *) {
		U *dst = DecodedRows<U>(out, n);
		DeferredValues f;
		const bool within = Defer<U>(type, n, r, f);
		CODEC::template Rows<U>(type, f, 0, n, dst);
		return within;
	}
};

// ---- string blocks: the strings of plain chunks and of dictionaries --------------------------

//! The n strings at(0), ..., at(n - 1): their lengths bit-packed, then their bytes; each added
//! to `range` too, if given, as it is copied.
template <class AT>
void WriteStrings(ByteWriter &out, uint64_t n, AT &&at, StringRange *range = nullptr) {
	auto &lens = Scratch<uint64_t>(2);
	lens.resize(n);
	uint64_t total = 0, longest = 0;
	for (uint64_t i = 0; i < n; i++) {
		lens[i] = at(i).size();
		total += lens[i];
		longest = std::max(longest, lens[i]);
	}
	WritePacked(out, lens, BitWidth(longest));
	out.Var(total);
	out.data.reserve(out.data.size() + total);
	for (uint64_t i = 0; i < n; i++) {
		const std::string_view v = at(i);
		if (range) {
			range->Add(StringRef {v.data(), static_cast<uint32_t>(v.size())});
		}
		out.Bytes(v.data(), v.size());
	}
}

//! Reads a string block of n strings pointing into the chunk's own buffer; with `utf8`, refuses a
//! block that is not valid UTF-8 string by string.
void ReadStrings(ByteReader &r, uint64_t n, bool utf8, StringRefs &out);

//! Dictionary codes, unclamped (checked after, with LargestCode).
void UnpackCodes(const uint8_t *packed, uint64_t n, uint8_t bw, uint32_t *out);
uint32_t LargestCode(const uint32_t *codes, uint64_t n);

inline std::string RawString(std::string_view v) {
	return std::string(v);
}

} // namespace encoding_internal
} // namespace vtx
