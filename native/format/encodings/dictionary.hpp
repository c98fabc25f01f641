// Dictionary encoding (encoding 4): the distinct values once, and a code per
// row. Chosen only where values repeat (DictionaryBuilder gives up as soon as it cannot win); its
// codes are also what the fast paths of filters and GROUP BY work on (compute/predicate.cpp,
// compute/grouped_aggregation.cpp). Strings' dictionaries too: a string block of the values.
#pragma once
#include "dictionary_builder.hpp"
#include "encoding.hpp"
#include "encoding_internal.hpp"
#include "fixed_width.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

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

//! Dictionary payload: the values in code order, then each row's code bit-packed to the width of
//! the largest code.
template <class U>
void WriteDictionary(ByteWriter &out, const std::vector<U> &values, const std::vector<uint64_t> &codes) {
	out.Var(values.size());
	out.Bytes(values.data(), values.size() * sizeof(U));
	WritePacked(out, codes, BitWidth(values.size() - 1));
}


//! Tried after the others, as it is the dearest to try: its hash table is given up as soon as it
//! holds more values than could still beat the best size so far. FOR already wins on narrow
//! ranges, so a frame of 8 bits or fewer is not tried at all.
struct DictionaryCodec : EntryCodec<DictionaryCodec> {
	template <class U>
	struct Choice {
		DictionaryBuilder<U> dict {0};

		Offer Make(const FixedValues<U> &v, uint64_t best) {
			const uint64_t n = v.n;
			if (n < 64 || v.range_bw <= 8) {
				return Offer {};
			}
			const uint64_t limit = std::min<uint64_t>({kMaxDictionary, n / 4, DictionaryBound(n, sizeof(U), best)});
			dict = DictionaryBuilder<U>(limit);
			auto &codes = Scratch<uint64_t>(1);
			codes.clear();
			const U *vals = v.vals;
			const bool complete = BuildDictionary<U>(n, [&](uint64_t i) { return vals[i]; }, dict, codes);
			HintFromDictionary(complete, dict.values, RawValue<U>, v.hint);
			if (!complete) {
				return Offer {};
			}
			return Offer {10 + dict.values.size() * sizeof(U) + PackedWords(n, BitWidth(dict.values.size() - 1)) * 8};
		}
		void Write(const FixedValues<U> &, ByteWriter &out) {
			WriteDictionary<U>(out, dict.values, Scratch<uint64_t>(1));
		}
	};

	//! A dictionary's values and packed codes.
	template <class U>
	static DeferredValues Read(uint64_t n, ByteReader &r) {
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

	//! Rows [b, e) of dictionary-coded values (b a multiple of 64) into dst[0, e - b), in blocks: the
	//! codes unpacked alone and checked, then looked up.
	template <class U>
	static void Rows(const ColumnType &, const DeferredValues &f, uint64_t b, uint64_t e, U *dst) {
		uint32_t codes[kCodeBlock];
		for (uint64_t at = b; at < e; at += kCodeBlock) {
			const uint64_t m = std::min(kCodeBlock, e - at);
			DictionaryCodes(f.words, f.bw, f.size, at, m, codes);
			U *out = dst + (at - b);
			for (uint64_t i = 0; i < m; i++) {
				out[i] = LoadValue<U>(f.entries + uint64_t(codes[i]) * sizeof(U));
			}
		}
	}

	//! Per row of [begin, end) (begin a multiple of 64), its code, each checked against the
	//! dictionary's size.
	static void EntryIndexes(const DeferredValues &f, uint64_t begin, uint64_t end, uint32_t *codes) {
		if (begin % 64 != 0) {
			throw std::logic_error("vortex: dictionary codes from a row that does not start a packed word");
		}
		for (uint64_t at = begin; at < end; at += kCodeBlock) {
			DictionaryCodes(f.words, f.bw, f.size, at, std::min(kCodeBlock, end - at), codes + (at - begin));
		}
	}

	//! The values at rows base + rows[i] into out[i]; a code past the dictionary is an error.
	template <class U>
	static void RowsAt(const ColumnType &, const DeferredValues &f, uint64_t base, const uint32_t *rows, uint64_t n,
	                   U *out) {
		for (uint64_t i = 0; i < n; i++) {
			const uint64_t code = PackedAt(f.words, base + rows[i], f.bw);
			if (code >= f.size) {
				throw FormatError("dictionary code out of range");
			}
			out[i] = LoadValue<U>(f.entries + code * sizeof(U));
		}
	}

	//! Strings: taken wherever values repeat enough (BuildDictionary's sample decides), its
	//! values a string block.
	template <class AT>
	struct StringChoice {
		DictionaryBuilder<std::string_view> dict {0};

		Offer Make(const StringValues<AT> &v, uint64_t) {
			dict = DictionaryBuilder<std::string_view>(std::min<uint64_t>(kMaxDictionary, v.n / 2));
			auto &codes = Scratch<uint64_t>(1);
			const bool complete = BuildDictionary<std::string_view>(v.n, v.at, dict, codes);
			if (v.in.IsValid(0)) {
				HintFromDictionary(complete, dict.values, RawString, v.hint);
			} else if (v.hint && dict.values.size() > kMaxDistinctValues + 1) {
				// Rows before the first valid one stand in as "", which the values may not hold.
				v.hint->distinct = ValueHint::Distinct::MANY;
			}
			return complete ? Offer {dict.values.size(), true} : Offer {};
		}
		void Write(const StringValues<AT> &v, ByteWriter &out) {
			out.Var(dict.values.size());
			WriteStrings(out, dict.values.size(), [&](uint64_t i) { return dict.values[i]; }, v.range);
			WritePacked(out, Scratch<uint64_t>(1), BitWidth(dict.values.size() - 1));
		}
	};
	static bool DecodeStrings(uint64_t n, ByteReader &r, bool utf8, DecodedColumn &out) {
		auto d = r.Count(1);
		if (d == 0 && n > 0) {
			throw FormatError("empty dictionary");
		}
		ReadStrings(r, d, utf8, out.dictionary);
		uint8_t bw;
		auto words = ReadPacked(r, n, 32, bw);
		out.codes.resize(n);
		UnpackCodes(words, n, bw, out.codes.data());
		// Only where the width allows a code past the dictionary.
		if (n > 0 && (bw >= 32 || (uint64_t(1) << bw) > d) && LargestCode(out.codes.data(), n) >= d) {
			throw FormatError("dictionary code out of range");
		}
		return true;
	}
};

} // namespace encoding_internal
} // namespace vtx
