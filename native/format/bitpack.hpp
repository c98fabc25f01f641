// Bit-packing of unsigned deltas into 64-bit little-endian words, LSB first.
#pragma once
#include <cstdint>
#include <vector>

namespace vtx {

inline uint8_t BitWidth(uint64_t max_value) {
	return max_value == 0 ? 0 : static_cast<uint8_t>(64 - __builtin_clzll(max_value));
}

inline uint64_t PackedWords(uint64_t n, uint8_t bw) {
	return (n * bw + 63) / 64;
}

void Pack(const uint64_t *values, uint64_t n, uint8_t bw, std::vector<uint64_t> &words);

//! Calls sink(i, value) for each of the n packed values; `words` must hold PackedWords(n, bw).
//! The generic path: for tails and cold callers.
template <class SINK>
inline void Unpack(const uint64_t *words, uint64_t n, uint8_t bw, SINK &&sink) {
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
		uint64_t v = words[w] >> off;
		if (off + bw > 64) {
			v |= words[w + 1] << (64 - off);
		}
		sink(i, v & mask);
	}
}

//! One byte per value from 1-bit packed values: `zero` where the bit is 0, `one` where it is 1.
//! Eight values per step (each byte of bits spread to eight bytes with one multiply).
void UnpackBitsToBytes(const uint64_t *words, uint64_t n, uint8_t zero, uint8_t one, uint8_t *out);

namespace detail {

//! 64 values of BW bits occupy exactly BW words: with BW a constant and the loop unrolled,
//! every shift, mask and word index is a constant, so the loop is branch-free.
template <unsigned BW, class OUT, class F>
inline void Unpack64(const uint64_t *__restrict in, OUT *__restrict out, const F &f) {
#pragma GCC unroll 64
	for (unsigned j = 0; j < 64; j++) {
		const unsigned bit = j * BW, w = bit >> 6, off = bit & 63;
		uint64_t v = in[w] >> off;
		if (off + BW > 64) {
			v |= in[w + 1] << ((64 - off) & 63);
		}
		if (BW < 64) {
			v &= (uint64_t(1) << (BW & 63)) - 1;
		}
		out[j] = f(v);
	}
}

template <unsigned BW, class OUT, class F>
inline void UnpackWidth(const uint64_t *words, uint64_t n, OUT *out, const F &f) {
	const uint64_t groups = n / 64;
	for (uint64_t g = 0; g < groups; g++) {
		if (BW == 0) {
			for (unsigned j = 0; j < 64; j++) {
				out[g * 64 + j] = f(uint64_t(0));
			}
		} else {
			Unpack64<BW>(words + g * BW, out + g * 64, f);
		}
	}
	const uint64_t done = groups * 64;
	if (done < n) {
		Unpack(words + groups * BW, n - done, static_cast<uint8_t>(BW),
		       [&](uint64_t i, uint64_t v) { out[done + i] = f(v); });
	}
}

template <unsigned BW, unsigned MAX, class OUT, class F>
inline void UnpackDispatch(unsigned bw, const uint64_t *words, uint64_t n, OUT *out, const F &f) {
	if (bw == BW) {
		UnpackWidth<BW>(words, n, out, f);
	} else if constexpr (BW < MAX) {
		UnpackDispatch<BW + 1, MAX>(bw, words, n, out, f);
	}
}

} // namespace detail

//! out[i] = f(value i) for n packed values of width bw <= MAX_BW, with a loop specialised
//! per width (64 values per step, word-at-a-time). `words` must hold PackedWords(n, bw).
template <unsigned MAX_BW, class OUT, class F>
inline void UnpackTo(const uint64_t *words, uint64_t n, uint8_t bw, OUT *out, const F &f) {
	detail::UnpackDispatch<0, MAX_BW>(bw, words, n, out, f);
}

} // namespace vtx
