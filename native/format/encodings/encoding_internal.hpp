// What the encoders and decoders of encoding.cpp, alp.hpp and fixed_width.cpp share.
#pragma once
#include "bitpack.hpp"
#include "../bytes.hpp"
#include "../column.hpp"
#include "../scratch.hpp"
#include "../stats/stats.hpp"

#include <cstring>
#include <string>
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

} // namespace encoding_internal
} // namespace vtx
