// What the encoders and decoders of encoding.cpp, alp.hpp and fixed_width.cpp share.
#pragma once
#include "bytes.hpp"
#include "column.hpp"
#include "scratch.hpp"

#include <cstring>
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

} // namespace encoding_internal
} // namespace vtx
