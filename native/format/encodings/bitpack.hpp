// Bit-packing of unsigned deltas into 64-bit little-endian words, LSB first.
//
// Unpacking reads the words where they lie in a chunk's buffer, at any alignment (the fields
// before them are byte-sized): copying them out first to align them cost a pass over the packed
// bytes and a fresh buffer per segment.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace vtx {

inline uint8_t BitWidth(uint64_t max_value) {
	return max_value == 0 ? 0 : static_cast<uint8_t>(64 - __builtin_clzll(max_value));
}

inline uint64_t PackedWords(uint64_t n, uint8_t bw) {
	return (n * bw + 63) / 64;
}

//! Packs value(0), ..., value(n - 1), each below 2^bw, into the PackedWords(n, bw) words at `dst`
//! (any alignment), LSB first. The values come from a function, so that a caller
//! packing deltas or codes need not store them first, and each word is written once.
template <class VALUE>
inline void PackInto(uint64_t n, uint8_t bw, VALUE &&value, uint8_t *dst) {
	if (bw == 0) {
		return;
	}
	uint64_t word = 0;
	unsigned fill = 0; // bits of `word` in use
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t v = value(i);
		word |= v << fill;
		fill += bw;
		if (fill >= 64) {
			std::memcpy(dst, &word, 8);
			dst += 8;
			fill -= 64;
			word = fill ? v >> (bw - fill) : 0; // the bits that did not fit
		}
	}
	if (fill) {
		std::memcpy(dst, &word, 8);
	}
}

//! Eight bits (the low byte of `bits`) as eight bytes of 0 or 1, bit k in byte k (little-endian):
//! byte k keeps bit k, and adding 0x7F moves any set bit to the byte's top bit.
inline uint64_t BitsToBytes(uint64_t bits) {
	const uint64_t x = ((bits & 0xFF) * 0x0101010101010101ULL) & 0x8040201008040201ULL;
	return ((x + 0x7F7F7F7F7F7F7F7FULL) & 0x8080808080808080ULL) >> 7;
}

//! The reverse: bit k of the result is set where byte k of `bytes` is not zero.
inline uint64_t BytesToBits(uint64_t bytes) {
	bytes |= bytes >> 4; // each byte's bits folded into its lowest bit (shifts stay within the byte)
	bytes |= bytes >> 2;
	bytes |= bytes >> 1;
	return ((bytes & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56;
}

//! Word w of packed data starting at `packed` (any alignment).
inline uint64_t PackedWord(const uint8_t *packed, uint64_t w) {
	uint64_t v;
	std::memcpy(&v, packed + w * 8, sizeof(v));
	return v;
}

//! Value i of packed values of width bw, alone (`packed` holds the words of at least i + 1
//! values): for reading a few rows of a block without unpacking the rest.
inline uint64_t PackedAt(const uint8_t *packed, uint64_t i, uint8_t bw) {
	if (bw == 0) {
		return 0;
	}
	const uint64_t bit = i * bw, w = bit >> 6, off = bit & 63;
	uint64_t v = PackedWord(packed, w) >> off;
	if (off + bw > 64) {
		v |= PackedWord(packed, w + 1) << (64 - off);
	}
	return bw == 64 ? v : v & ((uint64_t(1) << bw) - 1);
}

//! Calls sink(i, value) for each of the n packed values; `packed` must hold PackedWords(n, bw)
//! words. The generic path: for tails and cold callers.
template <class SINK>
inline void Unpack(const uint8_t *packed, uint64_t n, uint8_t bw, SINK &&sink) {
	if (bw == 0) {
		for (uint64_t i = 0; i < n; i++) {
			sink(i, uint64_t(0));
		}
		return;
	}
	const uint64_t mask = bw == 64 ? ~uint64_t(0) : (uint64_t(1) << bw) - 1;
	uint64_t bit = 0;
	for (uint64_t i = 0; i < n; i++, bit += bw) {
		uint64_t w = bit >> 6, off = bit & 63;
		uint64_t v = PackedWord(packed, w) >> off;
		if (off + bw > 64) {
			v |= PackedWord(packed, w + 1) << (64 - off);
		}
		sink(i, v & mask);
	}
}

//! One byte per value from 1-bit packed values: `zero` where the bit is 0, `one` where it is 1.
//! Eight values per step (each byte of bits spread to eight bytes with one multiply).
void UnpackBitsToBytes(const uint8_t *packed, uint64_t n, uint8_t zero, uint8_t one, uint8_t *out);

namespace detail {

//! 64 values of BW bits occupy exactly BW words: with BW a constant and the loop unrolled,
//! every shift, mask and word index is a constant, so the loop is branch-free.
template <unsigned BW, class OUT, class F>
inline void Unpack64(const uint8_t *__restrict in, OUT *__restrict out, const F &f) {
#pragma GCC unroll 64
	for (unsigned j = 0; j < 64; j++) {
		const unsigned bit = j * BW, w = bit >> 6, off = bit & 63;
		uint64_t v = PackedWord(in, w) >> off;
		if (off + BW > 64) {
			v |= PackedWord(in, w + 1) << ((64 - off) & 63);
		}
		if (BW < 64) {
			v &= (uint64_t(1) << (BW & 63)) - 1;
		}
		out[j] = f(v);
	}
}

template <unsigned BW, class OUT, class F>
inline void UnpackWidth(const uint8_t *packed, uint64_t n, OUT *out, const F &f) {
	const uint64_t groups = n / 64;
	for (uint64_t g = 0; g < groups; g++) {
		if (BW == 0) {
			for (unsigned j = 0; j < 64; j++) {
				out[g * 64 + j] = f(uint64_t(0));
			}
		} else {
			Unpack64<BW>(packed + g * BW * 8, out + g * 64, f);
		}
	}
	const uint64_t done = groups * 64;
	if (done < n) {
		Unpack(packed + groups * BW * 8, n - done, static_cast<uint8_t>(BW),
		       [&](uint64_t i, uint64_t v) { out[done + i] = f(v); });
	}
}

template <unsigned BW, unsigned MAX, class OUT, class F>
inline void UnpackDispatch(unsigned bw, const uint8_t *packed, uint64_t n, OUT *out, const F &f) {
	if (bw == BW) {
		UnpackWidth<BW>(packed, n, out, f);
	} else if constexpr (BW < MAX) {
		UnpackDispatch<BW + 1, MAX>(bw, packed, n, out, f);
	}
}

} // namespace detail

//! out[i] = f(value i) for n packed values of width bw <= MAX_BW, with a loop specialised
//! per width (64 values per step, word-at-a-time). `packed` must hold PackedWords(n, bw) words.
template <unsigned MAX_BW, class OUT, class F>
inline void UnpackTo(const uint8_t *packed, uint64_t n, uint8_t bw, OUT *out, const F &f) {
	detail::UnpackDispatch<0, MAX_BW>(bw, packed, n, out, f);
}

} // namespace vtx
