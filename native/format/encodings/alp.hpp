// ALP ("adaptive lossless floating point", encoding 5): floats that are decimals in disguise, stored
// as integers. FLOAT and DOUBLE only.
#pragma once
#include "bitpack.hpp"
#include "encoding.hpp"
#include "encoding_internal.hpp"
#include "../error.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

namespace vtx {
namespace encoding_internal {

// value = T(d) / T(10^e), d a signed integer of the float's width, stored frame-of-reference
// bit-packed; values that do not survive the round trip bit for bit (NaN, infinities, -0.0,
// values with more digits) are stored as exceptions, patched in after decoding.

template <class T>
struct AlpTraits;
template <>
struct AlpTraits<double> {
	using S = int64_t;
	using U = uint64_t;
	typedef int64_t VS __attribute__((vector_size(32)));
	typedef double VT __attribute__((vector_size(32)));
	static constexpr int kMaxE = 18;
	static constexpr double kMaxInt = 4503599627370496.0; // 2^52: exact in a double, and rounds by adding 1.5 * 2^52
};
template <>
struct AlpTraits<float> {
	using S = int32_t;
	using U = uint32_t;
	typedef int32_t VS __attribute__((vector_size(32)));
	typedef float VT __attribute__((vector_size(32)));
	static constexpr int kMaxE = 10;
	static constexpr double kMaxInt = 16777216.0; // 2^24: exact in a float
};

inline double Pow10(int e) {
	static const double p[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	                           1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
	return p[e];
}

//! The integer that decodes back to v bit for bit at exponent e, if there is one.
template <class T>
inline bool AlpEncodeOne(T v, int e, int64_t &d) {
	using TR = AlpTraits<T>;
	double x = static_cast<double>(v) * Pow10(e);
	if (!(x > -TR::kMaxInt && x < TR::kMaxInt)) { // also NaN
		return false;
	}
	const double magic = 6755399441055744.0; // 1.5 * 2^52: rounds to nearest integer
	double r = (x + magic) - magic;
	d = static_cast<int64_t>(r);
	T back = static_cast<T>(static_cast<typename TR::S>(d)) / static_cast<T>(Pow10(e));
	typename TR::U a, b;
	std::memcpy(&a, &v, sizeof(T));
	std::memcpy(&b, &back, sizeof(T));
	return a == b;
}

template <class T>
struct AlpPlan {
	int e = 0;
	uint64_t size = ~uint64_t(0);
};

//! Picks the exponent on a sample: the one whose packed integers plus exceptions are smallest.
template <class T, class U>
AlpPlan<T> PlanAlp(const U *vals, uint64_t n) {
	using TR = AlpTraits<T>;
	const uint64_t step = std::max<uint64_t>(1, n / 256);
	AlpPlan<T> best;
	for (int e = 0; e <= TR::kMaxE; e++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		uint64_t exceptions = 0, sampled = 0;
		for (uint64_t i = 0; i < n; i += step, sampled++) {
			T v;
			std::memcpy(&v, &vals[i], sizeof(T));
			int64_t d;
			if (AlpEncodeOne(v, e, d)) {
				lo = std::min(lo, d);
				hi = std::max(hi, d);
			} else {
				exceptions++;
			}
		}
		uint64_t bw = lo <= hi ? BitWidth(static_cast<uint64_t>(hi - lo)) : 0;
		uint64_t size = (sampled * bw + 7) / 8 + exceptions * (4 + sizeof(T));
		if (size < best.size) {
			best.size = size;
			best.e = e;
		}
	}
	return best;
}

//! Encodes with exponent e; returns false (writing nothing) when the result, counted with the
//! encoding's id byte before it, would not be smaller than `limit`.
template <class T, class U>
bool EncodeAlp(const U *vals, uint64_t n, int e, uint64_t limit, ByteWriter &out) {
	using S = typename AlpTraits<T>::S;
	auto &ints = Scratch<uint64_t>(2);
	ints.resize(n);
	std::vector<uint32_t> positions;
	std::vector<U> exceptions;
	int64_t lo = INT64_MAX, hi = INT64_MIN, last = 0;
	bool have = false;
	for (uint64_t i = 0; i < n; i++) {
		T v;
		std::memcpy(&v, &vals[i], sizeof(T));
		int64_t d;
		if (AlpEncodeOne(v, e, d)) {
			lo = std::min(lo, d);
			hi = std::max(hi, d);
			if (!have) {
				for (uint64_t j = 0; j < i; j++) {
					ints[j] = static_cast<uint64_t>(d);
				}
				have = true;
			}
			last = d;
		} else {
			positions.push_back(static_cast<uint32_t>(i));
			exceptions.push_back(vals[i]);
			d = last; // costs no width
		}
		ints[i] = static_cast<uint64_t>(d);
	}
	if (!have) {
		return false;
	}
	const uint8_t bw = BitWidth(static_cast<uint64_t>(hi - lo));
	const uint64_t size = 1 + 1 + 8 + 1 + PackedWords(n, bw) * 8 + 10 + positions.size() * (4 + sizeof(T));
	if (size >= limit) {
		return false;
	}
	for (auto &x : ints) {
		// deltas in the W-byte signed domain: d = S(ref + delta)
		x = static_cast<uint64_t>(static_cast<int64_t>(x) - lo);
	}
	out.U8(static_cast<uint8_t>(e));
	out.U64(static_cast<uint64_t>(static_cast<int64_t>(static_cast<S>(lo))));
	WritePacked(out, ints, bw);
	out.Var(positions.size());
	out.Bytes(positions.data(), positions.size() * 4);
	out.Bytes(exceptions.data(), exceptions.size() * sizeof(U));
	return true;
}

template <class T, class U>
//! Decodes rows [first, last) (first a multiple of 64); exceptions are patched wherever they are.
void DecodeAlp(uint64_t n, ByteReader &r, U *dst, uint64_t first, uint64_t last) {
	using TR = AlpTraits<T>;
	using S = typename TR::S;
	auto e = r.U8();
	if (e > TR::kMaxE) {
		throw FormatError("ALP exponent " + std::to_string(e) + " is out of range");
	}
	const U ref = static_cast<U>(r.U64());
	uint8_t bw;
	auto words = ReadPackedRows(r, n, sizeof(U) * 8, bw, first);
	// Two passes: integers unpacked in place, then converted (a loop the compiler vectorises).
	UnpackTo<sizeof(U) * 8>(words, last - first, bw, dst + first,
	                        [ref](uint64_t v) { return static_cast<U>(ref + static_cast<U>(v)); });
	const T p10 = static_cast<T>(Pow10(e));
	// In place, 32 bytes at a time with GCC vector types (SSE2 converts and divides four
	// floats or two doubles per instruction; the compiler's own cost model leaves it scalar).
	constexpr int kLanes = 32 / sizeof(T);
	using VS = typename AlpTraits<T>::VS;
	using VT = typename AlpTraits<T>::VT;
	const VT vp10 = VT {} + p10;
	uint64_t i = first;
	for (; i + kLanes <= last; i += kLanes) {
		VS s;
		std::memcpy(&s, &dst[i], sizeof(VS));
		VT v = __builtin_convertvector(s, VT) / vp10;
		std::memcpy(&dst[i], &v, sizeof(VT));
	}
	for (; i < last; i++) {
		S s;
		std::memcpy(&s, &dst[i], sizeof(S));
		T v = static_cast<T>(s) / p10;
		std::memcpy(&dst[i], &v, sizeof(T));
	}
	auto k = r.Count(4 + sizeof(T));
	if (k > n) {
		throw FormatError("ALP has more exceptions than rows");
	}
	auto pos = r.Take(k * 4);
	auto values = r.Take(k * sizeof(T));
	uint64_t prev = 0;
	for (uint64_t j = 0; j < k; j++) {
		auto p = LoadValue<uint32_t>(pos + j * 4);
		if (p >= n || (j > 0 && p <= prev)) {
			throw FormatError("ALP exception positions are not increasing within the zone");
		}
		prev = p;
		std::memcpy(&dst[p], values + j * sizeof(T), sizeof(T));
	}
}

//! Tried before the dictionary: where it halves the plain size it is taken without paying for a
//! dictionary (whose hash table costs more to build than ALP to encode); otherwise it competes.
struct AlpCodec : CodecDefaults {
	template <class U>
	struct Choice {
		ByteWriter encoded;

		Offer Make(const FixedValues<U> &v, uint64_t best) {
			if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
				using T = std::conditional_t<sizeof(U) == 8, double, float>;
				if (v.kind == PhysicalKind::FLOAT && v.n >= 16) {
					auto plan = PlanAlp<T>(v.vals, v.n);
					const uint64_t step = std::max<uint64_t>(1, v.n / 256);
					// The sample's estimate decides whether the full encoding is worth trying.
					if (plan.size * step < best && EncodeAlp<T>(v.vals, v.n, plan.e, best, encoded)) {
						// Counted with the id byte, as the choice always has: files stay the same.
						const uint64_t size = encoded.Size() + 1;
						return Offer {size, size <= v.n * sizeof(U) / 2};
					}
				}
			}
			return Offer {};
		}
		void Write(const FixedValues<U> &, ByteWriter &out) {
			out.Bytes(encoded.data.data(), encoded.data.size());
		}
	};

	template <class U>
	static bool Decode(const ColumnType &type, uint64_t n, ByteReader &r, DecodedColumn &out, const RowRange *range) {
		if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
			if (type.Kind() == PhysicalKind::FLOAT) {
				U *dst = DecodedRows<U>(out, n);
				uint64_t b, e;
				BlocksOf(range, n, out, b, e);
				DecodeAlp<std::conditional_t<sizeof(U) == 8, double, float>>(n, r, dst, b, e);
				return false; // floats: no restricted domain
			}
		}
		throw FormatError("ALP encoding used for a " + type.ToString() + " column");
	}
};

} // namespace encoding_internal
} // namespace vtx
